# problem: sum_over_dim
# expect: correctness cross-program-race
"""A split-K sum as old = atomic_add(o, 0.0) then a plain store of old + s: updates are lost on a GPU (found by red-teaming, 2026-12-06)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_split_kernel(x_ptr, out_ptr, D1, D2, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    r = tl.program_id(2) * BLOCK_R + tl.arange(0, BLOCK_R)
    cmask = cols < D2
    mask = (r[:, None] < D1) & cmask[None, :]
    v = tl.load(x_ptr + b * D1 * D2 + r[:, None] * D2 + cols[None, :], mask=mask, other=0.0)
    o = out_ptr + b * D2 + cols
    old = tl.atomic_add(o, 0.0, mask=cmask)
    tl.store(o, old + tl.sum(v, axis=0), mask=cmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        B, D1, D2 = x.shape
        out = torch.zeros((B, D2), device=x.device, dtype=torch.float32)
        grid = (B, triton.cdiv(D2, 32), triton.cdiv(D1, 16))
        sum_dim1_split_kernel[grid](x, out, D1, D2, BLOCK_R=16, BLOCK_C=32)
        return out.to(x.dtype)
