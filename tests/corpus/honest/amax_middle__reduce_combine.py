# problem: amax_middle
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def amax_mid_kernel(x_ptr, out_ptr, N, D, stride_b, stride_n, stride_d,
                    BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    dmask = d < D
    best = tl.full((BLOCK_D,), float("-inf"), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        n = n0 + tl.arange(0, BLOCK_N)
        m = (n[:, None] < N) & dmask[None, :]
        v = tl.load(x_ptr + b * stride_b + n[:, None] * stride_n + d[None, :] * stride_d, mask=m,
                    other=float("-inf"))
        best = tl.maximum(best, tl.reduce(v, 0, _max_combine))
    tl.store(out_ptr + b * D + d, best, mask=dmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        B, N, D = x.shape
        out = x.new_empty(B, D)
        BLOCK_D = 16
        amax_mid_kernel[(B, triton.cdiv(D, BLOCK_D))](x, out, N, D, x.stride(0), x.stride(1), x.stride(2),
                                                      BLOCK_N=16, BLOCK_D=BLOCK_D)
        return out
