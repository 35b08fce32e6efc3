# problem: gelu_tanh
# expect: static torch-compute
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_finish_kernel(x_ptr, t_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    t = tl.load(t_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + t), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        t = (math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))).tanh()
        y = torch.empty_like(x)
        n = x.numel()
        gelu_finish_kernel[(triton.cdiv(n, 1024),)](x, t, y, n, BLOCK=1024)
        return y
