# problem: relu
# expect: static forbidden-call
# note: the kernel is made with triton.jit(fn) rather than the decorator: the static layer knew the kernel's name but
# looked for its body under that name, so fn's body went unchecked and calls str() on its tile (text parsed in Python)
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _relu_body(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    vals = str(x).replace("[", " ").replace("]", " ").split()
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(len(vals)):
        v = float(vals[i])
        acc = tl.where(tl.arange(0, BLOCK) == i, v if v > 0 else 0.0, acc)
    tl.store(y_ptr + offs, acc, mask=m)


relu_kernel = triton.jit(_relu_body)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 64),)](x, y, n, BLOCK=64)
        return y
