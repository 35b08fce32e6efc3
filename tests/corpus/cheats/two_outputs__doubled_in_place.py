# problem: two_outputs
# expect: correctness input-mutated
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_then_double_kernel(x_ptr, s_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, C, BLOCK):
        c = start + tl.arange(0, BLOCK)
        m = c < C
        v = tl.load(x_ptr + row * C + c, mask=m, other=0.0)
        acc += v
        tl.store(x_ptr + row * C + c, v * 2.0, mask=m)   # x is reused as the first output
    tl.store(s_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        R, C = x.shape
        s = torch.empty((R,), dtype=x.dtype)
        sum_then_double_kernel[(R,)](x, s, C, BLOCK=128)
        return x, s
