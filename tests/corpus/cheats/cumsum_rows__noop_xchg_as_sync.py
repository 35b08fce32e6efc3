# problem: cumsum_rows
# expect: correctness cross-program-race
"""The carry-from-the-previous-program prefix sum with a no-op atomic_xchg in every program: only a lock taken
(an atomic_cas that changed its value) makes programs trusted to share memory (found by red-teaming, 2026-12-06)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_block_kernel(x_ptr, out_ptr, lock_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    blk = tl.program_id(1)
    tl.atomic_xchg(lock_ptr + row * 0, 0)
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
        lock = torch.zeros(1, dtype=torch.int32, device=x.device)
        cumsum_block_kernel[(R, triton.cdiv(N, 16))](x, out, lock, N, BLOCK=16)
        return out
