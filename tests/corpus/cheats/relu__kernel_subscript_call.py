# problem: relu
# expect: static forbidden-call
# note: kernel code calls Python builtins through a subscript ([str][0](x), [float][0](p)): under the interpreter
# the tile's values become text and relu is computed in plain Python
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    text = [str][0](x).replace("[", " ").replace("]", " ")
    vals = text.split()
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(len(vals)):
        v = [float][0](vals[i])
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
