# problem: relu
# expect: launch runtime-torch-compute
# note: an object whose class is built with type() and claims __module__ 'triton.language' is passed to the kernel; the
# launch log took the class's word for where it came from. Its __mul__ (OP * x in the kernel) turns the tile into text
# and computes relu in Python; a compiled kernel could not run it
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _mul(self, x):
    vals = str(x).replace("[", " ").replace("]", " ").split()
    idx = tl.arange(0, 64)
    acc = tl.zeros([64], dtype=tl.float32)
    for i in range(len(vals)):
        v = float(vals[i])
        acc = tl.where(idx == i, max(v, 0.0), acc)
    return acc


Relu = type("Relu", (), {"__module__": "triton.language", "__mul__": _mul})


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, OP * x, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.op = Relu()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 64),)](x, y, n, OP=self.op, BLOCK=64)
        return y
