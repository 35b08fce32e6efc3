# problem: gelu_tanh
# expect: correctness output-mismatch
# note: tanh(u) written as (e^{2u}-1)/(e^{2u}+1): inf/inf = NaN once u > ~44 (x > ~55)
# note: found by a red-team pass that the verifier accepted it; caught by the value variant 'scaled' (inputs x32)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    e = tl.exp(2.0 * u)
    t = (e - 1.0) / (e + 1.0)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + t), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        gelu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        return y
