# problem: relu
# note: the kernel wrapped in a torch.autograd.Function so the module also trains; backward (plain torch) runs only
# note: when a gradient is asked for, never inside model(x), and is not forward-path code.
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.autograd import Function


@triton.jit
def relu_fwd_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.where(x > 0, x, 0.0), mask=mask)


def ceil_div(a, b):
    return (a + b - 1) // b


class TritonReLU(Function):
    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        grid = lambda meta: (ceil_div(n, meta["BLOCK_SIZE"]),)  # noqa: E731
        relu_fwd_kernel[grid](x, y, n, BLOCK_SIZE=1024)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_out):
        (y,) = ctx.saved_tensors
        return grad_out * (y > 0).to(grad_out.dtype)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return TritonReLU.apply(x)
