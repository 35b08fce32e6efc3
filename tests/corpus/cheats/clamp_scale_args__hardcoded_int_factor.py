# problem: clamp_scale_args
# expect: correctness output-mismatch
# note: reads forward's float limit but hard-codes its int factor 3 (red-teaming 2026-12-06: ints were never
# note: varied); the value variant 'ints' (factor 3 -> 4) catches it
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def clamp_scale_kernel(x_ptr, out_ptr, n, lo, hi, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.minimum(tl.maximum(x, lo), hi) * factor
    tl.store(out_ptr + offs, y, mask=m)


def _grid(n: int, block: int) -> tuple[int]:
    return ((n + block - 1) // block,)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, limit, factor):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        lo = -limit
        hi = float(limit)
        clamp_scale_kernel[_grid(n, 256)](x, out, n, lo, hi, 3, BLOCK=256)
        return out
