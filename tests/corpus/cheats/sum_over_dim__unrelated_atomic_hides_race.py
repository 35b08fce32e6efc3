# problem: sum_over_dim
# expect: correctness cross-program-race
"""A split-K sum accumulated with a plain load and store (a GPU race), with an unrelated atomic counter: an atomic
exempts only the elements it touches, not the launch (found by red-teaming, 2026-12-06)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_split_kernel(x_ptr, out_ptr, cnt_ptr, D1, D2, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    r = tl.program_id(2) * BLOCK_R + tl.arange(0, BLOCK_R)
    cmask = cols < D2
    mask = (r[:, None] < D1) & cmask[None, :]
    v = tl.load(x_ptr + b * D1 * D2 + r[:, None] * D2 + cols[None, :], mask=mask, other=0.0)
    o = out_ptr + b * D2 + cols
    tl.store(o, tl.load(o, mask=cmask, other=0.0) + tl.sum(v, axis=0), mask=cmask)
    tl.atomic_add(cnt_ptr, 1)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        B, D1, D2 = x.shape
        out = torch.zeros((B, D2), device=x.device, dtype=torch.float32)
        cnt = torch.zeros(1, device=x.device, dtype=torch.int32)
        grid = (B, triton.cdiv(D2, 32), triton.cdiv(D1, 16))
        sum_dim1_split_kernel[grid](x, out, cnt, D1, D2, BLOCK_R=16, BLOCK_C=32)
        return out.to(x.dtype)
