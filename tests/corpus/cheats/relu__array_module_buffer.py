# problem: relu
# expect: static forbidden-import
import array
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
        a = array.array("f", x.reshape(-1).tolist())
        for i in range(len(a)):
            if a[i] < 0:
                a[i] = 0.0
        h = torch.frombuffer(bytearray(a.tobytes()), dtype=torch.float32).reshape(x.shape)
        out = torch.empty_like(h)
        copy_kernel[(triton.cdiv(h.numel(), 1024),)](h, out, h.numel(), BLOCK=1024)
        return out
