# problem: cumsum_rows
# expect: correctness intra-program-race
"""A Hillis-Steele (doubling) prefix sum of each row, one program per row, passed through the output buffer: every
lane stores its running value, then loads the value `d` lanes to its left, adds it and doubles `d`. Triton's
interpreter runs each store and each load over the whole block at once, so the loads always see the stores; on a GPU
the row's elements live on many threads (several warps), and without `tl.debug_barrier()` between the store and the
load a thread reads a neighbour's value before (or after the next step's) store: a race between the threads of one
program. The honest twin with the barriers: honest/cumsum_rows__doubling_scan_with_barriers.py."""
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
        x += tl.load(base + cols - d, mask=mask & (cols >= d), other=0.0)
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
