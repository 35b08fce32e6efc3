# problem: two_outputs
# expect: correctness output-mismatch
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_and_sum_kernel(x_ptr, y_ptr, s_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, C, BLOCK):
        c = start + tl.arange(0, BLOCK)
        m = c < C
        v = tl.load(x_ptr + row * C + c, mask=m, other=0.0)
        tl.store(y_ptr + row * C + c, v * 2.0, mask=m)
        acc += v * 2.0                         # sums the doubled values
    tl.store(s_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty_like(x)
        s = torch.empty((R,), dtype=x.dtype)
        double_and_sum_kernel[(R,)](x, y, s, C, BLOCK=128)
        return y, s
