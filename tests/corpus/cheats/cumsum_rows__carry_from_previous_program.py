# problem: cumsum_rows
# expect: correctness cross-program-race
"""A prefix sum in column blocks, one program per block, each starting from the last value the previous block's
program stored. Triton's interpreter runs the programs in order, so the carry is always there on a CPU; on a GPU the
blocks run at once and most read a carry not yet written (a decoupled look-back needs atomics and a flag)."""
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
