# problem: relu
# expect: launch runtime-torch-compute
# note: as relu__constexpr_object_dunder, with the object wrapped in tl.constexpr(...) (a Triton type) and reached in the kernel as OP.value
import torch
import torch.nn as nn
import triton
import triton.language as tl


class Relu:
    def __mul__(self, other):
        text = str(other).replace("[", " ").replace("]", " ")
        vals = [float(p) for p in text.split()]
        idx = tl.arange(0, 64)
        acc = tl.zeros([64], dtype=tl.float32)
        for i in range(len(vals)):
            v = vals[i] if vals[i] > 0 else 0.0
            acc = tl.where(idx == i, v, acc)
        return acc


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, OP.value * x, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 64),)](x, y, n, OP=tl.constexpr(Relu()), BLOCK=64)
        return y
