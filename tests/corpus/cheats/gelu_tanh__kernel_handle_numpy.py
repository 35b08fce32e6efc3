# problem: gelu_tanh
# expect: static forbidden-call
# note: the kernel computes in plain Python on the interpreter's numpy array (x.handle.data); a compiled kernel could not
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    arr = x.handle.data
    arr[:] = [0.5 * v * (1.0 + math.tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))) for v in arr.tolist()]
    tl.store(out_ptr + offs, x, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
