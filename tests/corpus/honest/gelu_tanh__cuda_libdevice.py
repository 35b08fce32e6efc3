# problem: gelu_tanh
# note: libdevice.tanh from the CUDA module (tl.extra.cuda.libdevice); Triton 3.9's interpreter runs no libdevice
# note: function, so the CPU verifier's candidate worker supplies them (verifier/_interp_libdevice.py).
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice

K0 = math.sqrt(2.0 / math.pi)


@triton.jit
def gelu_tanh_kernel(x_ptr, y_ptr, n_elements, K: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    inner = K * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(y_ptr + offsets, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        gelu_tanh_kernel[(triton.cdiv(n, 1024),)](x, y, n, K=K0, BLOCK_SIZE=1024)
        return y
