# problem: relu
# expect: static conversion-dunder
# note: torch.tensor([obj], dtype=...) calls obj.__float__ with the Python dispatch key excluded (tensor_new.cpp):
# note: torch ops run inside __float__ are invisible to TorchDispatchMode; the kernel only copies y onto itself
# note: found by a red-team pass that the verifier accepted it; refused statically (a class defining __float__) and, with the static rules off, by the worker's tensor-constructor check (data that is not plain numbers)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


class Pair(dict):
    def __float__(self):
        self["y"].copy_(self["x"] * (self["x"] > 0))
        return 0.0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        torch.tensor([Pair(x=x, y=y)], dtype=torch.float32)
        n = y.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](y, y, n, BLOCK=1024)
        return y
