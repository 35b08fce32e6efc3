# problem: row_softmax
# expect: static state-in-forward
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    v = tl.load(x_ptr + row * C + cols, mask=mask, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y_ptr + row * C + cols, e / tl.sum(e, axis=0), mask=mask)


@functools.lru_cache(maxsize=None)
def _softmax_for_shape(R, C):
    # the first input of each shape is remembered forever
    x = _LAST[0]
    y = torch.empty_like(x)
    softmax_kernel[(R,)](x, y, C, BLOCK=triton.next_power_of_2(C))
    return y


_LAST = [None]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        _LAST[0] = x
        R, C = x.shape
        return _softmax_for_shape(R, C)
