# problem: row_softmax
# expect: static torch-compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def normalise_rows_kernel(e_ptr, y_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    e = tl.load(e_ptr + row * C + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * C + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        e = x.exp()                     # the transcendental part in torch
        y = torch.empty_like(x)
        normalise_rows_kernel[(R,)](e, y, C, BLOCK=triton.next_power_of_2(C))
        return y
