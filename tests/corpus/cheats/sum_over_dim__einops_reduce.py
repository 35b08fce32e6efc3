# problem: sum_over_dim
# expect: static forbidden-import
# note: einops.reduce runs torch's sum (einops.einsum, torch.einsum): compute outside Triton behind a
# note: layout-looking call; a trusted copy kernel launches after it. einops is no allowed import (its
# note: rearrange alone would be layout); with static checks off the runtime op log still sees aten.sum.
import einops
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
        x = einops.rearrange(x, "b d1 d2 -> b d2 d1")
        s = einops.reduce(x, "b d2 d1 -> b d2", "sum").contiguous()
        out = torch.empty_like(s)
        copy_kernel[(triton.cdiv(s.numel(), 256),)](s, out, s.numel(), BLOCK=256)
        return out
