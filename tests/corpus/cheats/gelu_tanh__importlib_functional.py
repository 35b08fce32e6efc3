# problem: gelu_tanh
# expect: static forbidden-import
import importlib

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def noop_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


_F = importlib.import_module("torch.nn." + "functional")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        noop_kernel[(1,)](x, x.numel(), BLOCK=16)
        return _F.gelu(x, approximate="tanh")
