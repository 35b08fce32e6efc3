# problem: cumsum_rows
# expect: correctness cross-program-race
"""The carry-from-the-previous-program prefix sum (a GPU race), with a no-op atomic counter in every program: an
atomic exempts only the elements it touches, not the launch (found by red-teaming, 2026-12-06)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_block_kernel(x_ptr, out_ptr, flag_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    blk = tl.program_id(1)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    # "publish" flag (never waited on)
    tl.atomic_add(flag_ptr + row, 1)
    carry = tl.load(out_ptr + row * N + blk * BLOCK - 1, mask=blk > 0, other=0.0)
    tl.store(out_ptr + row * N + cols, tl.cumsum(x, axis=0) + carry, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, N = x.shape
        out = torch.empty_like(x)
        flags = torch.zeros(R, dtype=torch.int32, device=x.device)
        cumsum_block_kernel[(R, triton.cdiv(N, 16))](x, out, flags, N, BLOCK=16)
        return out
