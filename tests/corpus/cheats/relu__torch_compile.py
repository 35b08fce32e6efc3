# problem: relu
# expect: static forbidden-call
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def noop_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


def _relu(x):
    return x * (x > 0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        # inductor generates the Triton code for us
        self._fn = torch.compile(_relu)

    def forward(self, x):
        noop_kernel[(1,)](x, x.numel(), BLOCK=16)
        return self._fn(x)
