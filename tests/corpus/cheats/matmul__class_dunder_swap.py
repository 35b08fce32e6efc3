# problem: matmul
# expect: static reflection
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def noop_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        noop_kernel[(1,)](a, a.numel(), BLOCK=16)
        # reach the bound matmul through the type's dict instead of naming it
        op = type(a).__dict__["__mat" + "mul__"]
        return op(a, b)
