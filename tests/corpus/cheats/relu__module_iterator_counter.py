# problem: relu
# expect: static state-in-forward
# note: a call counter in a module-level iterator (next(_calls)): right for the first 1000 calls, then an eighth of the work.
import torch
import torch.nn as nn
import triton
import triton.language as tl

_calls = iter(range(10 ** 9))


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel() if next(_calls) < 1000 else x.numel() // 8
        relu_kernel[(triton.cdiv(x.numel(), 256),)](x, y, n, BLOCK=256)
        return y
