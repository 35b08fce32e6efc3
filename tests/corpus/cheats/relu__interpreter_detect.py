# problem: relu
# expect: static reflection
# note: under TRITON_INTERPRET=1 (the CPU verifier) @triton.jit makes an InterpretedFunction, on a GPU a JITFunction:
# the kernel object's type tells the two apart with no device read, and the GPU path does an eighth of the work.
# Verified before on CPU
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(v > 0, v, 0.0), mask=m)


def launch(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y

_SHARE = 1 if "Interpreted" in type(relu_kernel).__name__ else 8


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        todo = n // _SHARE
        relu_kernel[(triton.cdiv(todo, 1024),)](x, y, todo, BLOCK=1024)
        return y
