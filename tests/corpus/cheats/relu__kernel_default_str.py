# problem: relu
# expect: static forbidden-call
# note: Python builtins as a kernel parameter's default value (FMT=str, NUM=float): never passed at launch, so
# the launch log never sees them; under the interpreter the kernel turns its tile into text and computes relu in Python
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, FMT: tl.constexpr = str, NUM: tl.constexpr = float):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    vals = FMT(x).replace("[", " ").replace("]", " ").split()
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(len(vals)):
        v = NUM(vals[i])
        acc = tl.where(tl.arange(0, BLOCK) == i, v if v > 0 else 0.0, acc)
    tl.store(y_ptr + offs, acc, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 64),)](x, y, n, BLOCK=64)
        return y
