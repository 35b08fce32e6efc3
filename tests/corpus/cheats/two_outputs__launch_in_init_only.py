# problem: two_outputs
# expect: launch no-launch
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        # "warm-up" launch so that a kernel exists and has been compiled; forward never launches
        w = torch.ones(16)
        double_kernel[(1,)](w, torch.empty_like(w), 16, BLOCK=16)

    def forward(self, x):
        R, C = x.shape
        return torch.empty((R, C), dtype=x.dtype), torch.empty((R,), dtype=x.dtype)
