# problem: add_broadcast
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_row_kernel(x_ptr, b_ptr, out_ptr, B, N, stride_x, stride_o,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < B) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_x + cols[None, :], mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + rows[:, None] * stride_o + cols[None, :], x + b[None, :], mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, bias):
        x = x.contiguous()
        bias = bias.contiguous()
        B, N = x.shape
        out = torch.empty_like(x)
        grid = (triton.cdiv(B, 16), triton.cdiv(N, 128))
        add_row_kernel[grid](x, bias, out, B, N, x.stride(0), out.stride(0), BLOCK_M=16, BLOCK_N=128)
        return out
