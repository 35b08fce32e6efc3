# problem: relu
# expect: static state-in-forward
# note: a call counter in the stride of a one-element buffer of zeros, re-strided through `.data =` (which moves no
# version counter; the values and the shape stay as they were). Right for 1000 calls, then an eighth of the work.
# Refused statically (a store through another name for self); tests/test_corpus.py runs it with the static rules off:
# the worker records each kept tensor's address, strides and offset with its version counter
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("flag", torch.zeros(1))

    def forward(self, x):
        b = self.flag
        calls = b.stride(0)
        b.data = b.data.as_strided((1,), (calls + 1,))
        x = x.contiguous()
        out = torch.zeros_like(x)
        n = x.numel()
        work = n if calls <= 1000 else n // 8
        relu_kernel[(triton.cdiv(work, 1024),)](x, out, work, BLOCK=1024)
        return out
