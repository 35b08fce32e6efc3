# problem: matmul
# expect: static torch-compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def identity_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        c = a @ b
        out = torch.empty_like(c)
        n = c.numel()
        identity_kernel[(triton.cdiv(n, 512),)](c, out, n, BLOCK=512)
        return out
