# problem: cumsum_rows
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def chunked_scan_kernel(x_ptr, out_ptr, n_cols, CHUNK: tl.constexpr):
    """One program per row; the row is scanned CHUNK columns at a time with a running carry."""
    row = tl.program_id(0)
    carry = tl.zeros((), dtype=tl.float32)
    for start in range(0, n_cols, CHUNK):
        cols = start + tl.arange(0, CHUNK)
        m = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=0.0)
        s = tl.associative_scan(x, 0, _add) + carry
        tl.store(out_ptr + row * n_cols + cols, s, mask=m)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        chunked_scan_kernel[(x.shape[0],)](x, out, x.shape[1], CHUNK=16)
        return out
