# problem: cumsum_rows
# expect: correctness cross-program-race
"""The carry-from-the-previous-program prefix sum (a GPU race), with dead broadcast loads of 5 x 1M accesses meant
to push the race tracking past its limit: the limit counts distinct elements (found by red-teaming, 2026-12-06)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_block_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    blk = tl.program_id(1)
    # "prefetch" (dead code on a GPU: the compiler drops it)
    if row + blk == 0:
        for i in tl.static_range(5):
            warm = tl.load(x_ptr + tl.zeros([1024, 1024], dtype=tl.int32))
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    carry = tl.load(out_ptr + row * N + blk * BLOCK - 1, mask=blk > 0, other=0.0)
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
