# problem: relu
# expect: static mode-dependent
# note: self.t[self, x] runs Table.__getitem__, a dunder no forward-path rule followed: in eval mode it runs torch.
# Verified before
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


class Table:
    def __getitem__(self, key):
        model, x = key
        if model.training:
            return launch(x)
        return torch.relu(x)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = Table()

    def forward(self, x):
        return self.t[self, x]
