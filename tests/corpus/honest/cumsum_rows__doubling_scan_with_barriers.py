# problem: cumsum_rows
"""A Hillis-Steele (doubling) prefix sum of each row through the output buffer, one program per row: every lane
stores its running value and loads the one `d` lanes to its left. `tl.debug_barrier()` after the store (every
thread's store is visible before any thread loads a neighbour's) and after the load (every thread has read before
any thread overwrites) makes it right on a GPU too. The twin without them:
cheats/cumsum_rows__intra_program_scan_without_barrier.py."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def doubling_scan_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    base = out_ptr + row * N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    d = 1
    while d < N:
        tl.store(base + cols, x, mask=mask)
        tl.debug_barrier()
        x += tl.load(base + cols - d, mask=mask & (cols >= d), other=0.0)
        tl.debug_barrier()
        d *= 2
    tl.store(base + cols, x, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, N = x.shape
        out = torch.empty_like(x)
        doubling_scan_kernel[(R,)](x, out, N, BLOCK=triton.next_power_of_2(N))
        return out
