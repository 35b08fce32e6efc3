# problem: cumsum_rows
# expect: correctness cross-program-race
"""The prefix-sum carry handed from program to program through scratch memory stored as float32 and read back as the
high half of an int64 slot: another type at another address, which a race tracker keyed by element address did not
connect (found by red-teaming, 2026-12-06). The tracker now works in cells of the smallest element size accessed."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_block_kernel(x_ptr, out_ptr, scr_ptr, scr64_ptr, N, NB, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    blk = tl.program_id(1)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    slot = row * NB + blk
    bits = tl.load(scr64_ptr + slot - 1, mask=blk > 0, other=0)
    carry = (bits >> 32).to(tl.int32).to(tl.float32, bitcast=True)
    carry = tl.where(blk > 0, carry, 0.0)
    c = tl.cumsum(x, axis=0) + carry
    tl.store(out_ptr + row * N + cols, c, mask=mask)
    tl.store(scr_ptr + 2 * slot + 1, tl.sum(x, axis=0) + carry)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, N = x.shape
        NB = triton.cdiv(N, 16)
        out = torch.empty_like(x)
        scr = torch.zeros(2 * R * NB, dtype=torch.float32, device=x.device)
        cumsum_block_kernel[(R, NB)](x, out, scr, scr.view(torch.int64), N, NB, BLOCK=16)
        return out
