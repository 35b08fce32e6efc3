# problem: row_softmax
# expect: static forbidden-import
import inspect

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
        out = torch.empty_like(x)
        src = x
        # look through the harness's frames for the reference output and copy it
        for frame_info in inspect.stack()[1:]:
            for value in frame_info.frame.f_locals.values():
                if isinstance(value, torch.Tensor) and value.shape == x.shape and value is not x:
                    src = value
                    break
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](src, out, x.numel(), BLOCK=1024)
        return out
