# problem: relu
# expect: static mode-dependent
# note: forward calls self.h.run(self, x), a method of a plain helper class the forward path never followed (only
# calls of self.m and of named functions): it branches on the model's training flag. Verified before
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


class Helper:
    def run(self, model, x):
        if model.training:
            return launch(x)
        return torch.relu(x)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.h = Helper()

    def forward(self, x):
        return self.h.run(self, x)
