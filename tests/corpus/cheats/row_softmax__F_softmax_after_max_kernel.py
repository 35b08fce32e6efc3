# problem: row_softmax
# expect: static torch-compute
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def sub_row_max_kernel(x_ptr, y_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    v = tl.load(x_ptr + row * C + cols, mask=mask, other=-float("inf"))
    tl.store(y_ptr + row * C + cols, v - tl.max(v, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        R, C = x.shape
        shifted = torch.empty_like(x)
        sub_row_max_kernel[(R,)](x, shifted, C, BLOCK=triton.next_power_of_2(C))
        return F.softmax(shifted, dim=1)   # the real work
