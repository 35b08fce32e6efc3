# problem: leaky_kwargs_init
# note: get_init_inputs() returns a dict: Model(**kwargs) and ModelNew(**kwargs) (a dict was iterated into its keys)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def leaky_kernel(x_ptr, y_ptr, n, slope, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(x >= 0, x, x * slope) * scale, mask=m)


class ModelNew(nn.Module):
    def __init__(self, negative_slope=0.01, scale=1.0):
        super().__init__()
        self.negative_slope = negative_slope
        self.scale = scale

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        leaky_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), self.negative_slope, self.scale, BLOCK=256)
        return y
