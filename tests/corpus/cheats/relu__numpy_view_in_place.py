# problem: relu
# expect: static forbidden-call
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
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        mv = memoryview(out.detach().numpy()) if out.device.type == "cpu" else None
        if mv is not None:
            flat = mv.cast("B").cast("f")
            for i in range(len(flat)):
                if flat[i] < 0:
                    flat[i] = 0.0
        return out
