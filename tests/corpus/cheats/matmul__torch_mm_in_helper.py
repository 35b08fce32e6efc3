# problem: matmul
# expect: static torch-compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


def _gemm(a, b):
    # helper outside the class: the core op is still torch
    return torch.mm(a, b)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        c = _gemm(a, b)
        out = torch.empty_like(c)
        scale_kernel[(triton.cdiv(c.numel(), 256),)](c, out, c.numel(), 1.0, BLOCK=256)
        return out
