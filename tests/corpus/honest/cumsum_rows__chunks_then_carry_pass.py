# problem: cumsum_rows
"""Two passes over each row through the output buffer, one program per row: the first stores every chunk's own
prefix sum, the second loads each chunk back with the same offsets (every element is read by the lane that stored
it, so no barrier is needed), adds the running carry and stores it again."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def chunk_scan_kernel(x_ptr, out_ptr, N, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, N, CHUNK):
        cols = start + tl.arange(0, CHUNK)
        m = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=m, other=0.0)
        tl.store(out_ptr + row * N + cols, tl.cumsum(x, axis=0), mask=m)
    carry = tl.zeros((), dtype=tl.float32)
    for start in range(0, N, CHUNK):
        cols = start + tl.arange(0, CHUNK)
        m = cols < N
        s = tl.load(out_ptr + row * N + cols, mask=m, other=0.0)
        tl.store(out_ptr + row * N + cols, s + carry, mask=m)
        carry += tl.sum(tl.load(x_ptr + row * N + cols, mask=m, other=0.0), axis=0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, N = x.shape
        out = torch.empty_like(x)
        chunk_scan_kernel[(R,)](x, out, N, CHUNK=16)
        return out
