# problem: gelu_tanh
# expect: static forbidden-call
# note: a plain Python function passed as a constexpr computes on the interpreter's numpy array; the launch recorder also flags it at runtime
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


def py_gelu(t):
    a = t.handle.data
    a[:] = [0.5 * v * (1.0 + math.tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))) for v in a.tolist()]
    return t


@triton.jit
def apply_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, FN(x), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        apply_kernel[(triton.cdiv(n, 1024),)](x, out, n, FN=py_gelu, BLOCK=1024)
        return out
