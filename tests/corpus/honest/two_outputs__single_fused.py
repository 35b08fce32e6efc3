# problem: two_outputs
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _double(v):
    return v * 2.0


@triton.jit
def double_and_sum_kernel(x_ptr, y_ptr, s_ptr, C, sx, sy, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, C, BLOCK):
        c = start + tl.arange(0, BLOCK)
        m = c < C
        v = tl.load(x_ptr + row * sx + c, mask=m, other=0.0)
        tl.store(y_ptr + row * sy + c, _double(v), mask=m)
        acc += v
    tl.store(s_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        R, C = x.shape
        if x.stride(1) != 1:
            x = x.contiguous()
        y = torch.empty((R, C), device=x.device, dtype=x.dtype)
        s = torch.empty((R,), device=x.device, dtype=x.dtype)
        double_and_sum_kernel[(R,)](x, y, s, C, x.stride(0), y.stride(0), BLOCK=64)
        return y, s
