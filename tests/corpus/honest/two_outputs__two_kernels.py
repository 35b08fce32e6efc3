# problem: two_outputs
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale2_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


@triton.jit
def rowsum_kernel(x_ptr, s_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, C, BLOCK):
        c = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * C + c, mask=c < C, other=0.0)
    tl.store(s_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        doubled = torch.empty_like(x)
        sums = torch.empty((R,), device=x.device, dtype=x.dtype)
        n = x.numel()
        scale2_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, doubled, n, BLOCK=512)
        rowsum_kernel[(R,)](x, sums, C, BLOCK=128)
        return doubled, sums
