# problem: standardize_affine
from typing import Tuple

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_L = 32
NUM_WARPS = 4


@triton.jit
def standardize_kernel(x_ptr, mean_ptr, std_ptr, gamma_ptr, out_ptr, C, L,
                       stride_b, stride_c, stride_l, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    c = tl.program_id(1)
    offs = tl.program_id(2) * BLOCK + tl.arange(0, BLOCK)
    m = offs < L
    mu = tl.load(mean_ptr + c)
    sd = tl.load(std_ptr + c)
    g = tl.load(gamma_ptr + c)
    x = tl.load(x_ptr + b * stride_b + c * stride_c + offs * stride_l, mask=m, other=0.0)
    y = (x - mu) / sd * g
    tl.store(out_ptr + (b * C + c) * L + offs, y, mask=m)


def _launch_grid(shape: Tuple[int, int, int], block: int) -> Tuple[int, int, int]:
    b, c, length = shape
    return (b, c, triton.cdiv(length, block))


class ModelNew(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.register_buffer("mean", torch.linspace(-0.5, 0.5, channels))
        self.register_buffer("std", torch.linspace(0.5, 2.0, channels))
        self.gamma = nn.Parameter(torch.empty(channels))
        nn.init.uniform_(self.gamma, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, L = x.shape
        out = torch.empty((B, C, L), device=x.device, dtype=x.dtype)
        grid = _launch_grid((B, C, L), BLOCK_L)
        standardize_kernel[grid](x, self.mean, self.std, self.gamma, out, C, L, x.stride(0), x.stride(1),
                                 x.stride(2), BLOCK=BLOCK_L, num_warps=NUM_WARPS)
        return out
