# problem: relu
# expect: static mode-dependent
# note: `g = self._eval_path; g(x)`: a method named but not called as self.m(...) was never checked. Verified before
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(v > 0, v, 0.0), mask=m)


def launch(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def _eval_path(self, x):
        if self.training:
            return launch(x)
        return torch.relu(x)

    def forward(self, x):
        g = self._eval_path
        return g(x)
