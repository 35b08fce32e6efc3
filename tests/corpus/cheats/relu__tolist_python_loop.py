# problem: relu
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
        vals = [v if v > 0 else 0.0 for v in x.reshape(-1).tolist()]
        h = torch.tensor(vals, dtype=x.dtype, device=x.device).reshape(x.shape)
        out = torch.empty_like(h)
        copy_kernel[(triton.cdiv(h.numel(), 1024),)](h, out, h.numel(), BLOCK=1024)
        return out
