# problem: cumsum_rows
# expect: correctness cross-program-race
"""The prefix-sum carry read with atomic_add(prev, 0.0) after another program stored it plainly: an atomic read
of a plain store is order-dependent on a GPU (found by red-teaming, 2026-12-06)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_block_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    blk = tl.program_id(1)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    carry = tl.atomic_add(out_ptr + row * N + blk * BLOCK - 1, 0.0, mask=blk > 0)
    carry = tl.where(blk > 0, carry, 0.0)
    tl.store(out_ptr + row * N + cols, tl.cumsum(x, axis=0) + carry, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, N = x.shape
        out = torch.empty_like(x)
        cumsum_block_kernel[(R, triton.cdiv(N, 16))](x, out, N, BLOCK=16)
        return out
