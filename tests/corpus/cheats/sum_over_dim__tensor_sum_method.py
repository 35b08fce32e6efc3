# problem: sum_over_dim
# expect: static torch-compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        s = x.sum(dim=1)
        out = torch.empty_like(s)
        copy_kernel[(triton.cdiv(s.numel(), 256),)](s, out, s.numel(), BLOCK=256)
        return out
