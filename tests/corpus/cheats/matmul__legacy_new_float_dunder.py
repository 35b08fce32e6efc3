# problem: matmul
# expect: static conversion-dunder
# note: a.new([obj]) (legacy constructor, not wrapped like torch.tensor) runs obj.__float__ with the Python dispatch
# note: key excluded; torch.mm runs there, handed over as a dict value (not called by name in forward)
# note: found by a red-team pass that the verifier accepted it; refused statically (a class defining __float__) and, with the static rules off, by the worker's check of x.new's data
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


class Job(dict):
    def __float__(self):
        self["out"].copy_(self["op"](self["a"], self["b"]))
        return 0.0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        out = a.new_empty((a.shape[0], b.shape[1]))
        a.new([Job(a=a, b=b, out=out, op=torch.mm)])
        n = out.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](out, out, n, BLOCK=1024)
        return out
