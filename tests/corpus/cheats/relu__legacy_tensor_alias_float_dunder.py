# problem: relu
# expect: static conversion-dunder
# note: torch.Tensor([obj]) through a module-level alias (legacy constructor) runs obj.__float__ with the Python dispatch key excluded; it was not wrapped
# note: found by a red-team pass that the verifier accepted it; refused statically (a class defining __float__) and, with the static rules off, by the worker's check of torch.Tensor's data (its __new__ wrapped)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


_T = torch.Tensor


class Pair(dict):
    def __float__(self):
        self["y"].copy_(self["x"] * (self["x"] > 0))
        return 0.0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        _T([Pair(x=x, y=y)])
        n = y.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](y, y, n, BLOCK=1024)
        return y
