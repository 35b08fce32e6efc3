# problem: gelu_tanh
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _tanh(u):
    # tanh(u) = 1 - 2 / (exp(2u) + 1); saturates correctly for large |u|
    return 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)


@triton.jit
def gelu_tanh_kernel(x_ptr, y_ptr, n, K0: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    inner = K0 * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + _tanh(inner))
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 512
        gelu_tanh_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, K0=math.sqrt(2.0 / math.pi), BLOCK=BLOCK)
        return y
