# problem: inplace_affine
# note: writes a new tensor (a candidate must leave its inputs unchanged); the reference changes its input in place,
# and was given the reference's changed input before, so it computed the op twice (2048 of 2048 elements differed)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.maximum(x * 3.0 + 1.0, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        affine_relu_kernel[(triton.cdiv(n, 512),)](x, y, n, BLOCK=512)
        return y
