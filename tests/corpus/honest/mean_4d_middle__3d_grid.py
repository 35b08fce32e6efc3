# problem: mean_4d_middle
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mean_dim2_kernel(x_ptr, out_ptr, H, W, sx0, sx1, sx2, sx3, so0, so1, so3,
                     BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    b = tl.program_id(0)
    c = tl.program_id(1)
    w = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)
    wmask = w < W
    acc = tl.zeros((BLOCK_W,), dtype=tl.float32)
    base = x_ptr + b * sx0 + c * sx1
    for h0 in tl.range(0, H, BLOCK_H):
        h = h0 + tl.arange(0, BLOCK_H)
        m = (h[:, None] < H) & wmask[None, :]
        v = tl.load(base + h[:, None] * sx2 + w[None, :] * sx3, mask=m, other=0.0)
        acc += tl.sum(v.to(tl.float32), axis=0)
    mean = acc / H
    tl.store(out_ptr + b * so0 + c * so1 + w * so3, mean, mask=wmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        B, C, H, W = x.shape
        out = torch.empty((B, C, 1, W), device=x.device, dtype=x.dtype)
        BLOCK_W = 16
        grid = (B, C, triton.cdiv(W, BLOCK_W))
        mean_dim2_kernel[grid](x, out, H, W, *x.stride(), out.stride(0), out.stride(1), out.stride(3),
                               BLOCK_H=8, BLOCK_W=BLOCK_W)
        return out
