# problem: add_broadcast
# expect: correctness output-mismatch
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_row_kernel(x_ptr, b_ptr, out_ptr, B, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N - 1                       # off by one: last column never written
    mask = (rows[:, None] < B) & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=cmask, other=0.0)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], x + b[None, :], mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, bias):
        x = x.contiguous()
        B, N = x.shape
        out = torch.zeros_like(x)
        add_row_kernel[(triton.cdiv(B, 16), triton.cdiv(N, 64))](x, bias, out, B, N, BLOCK_M=16, BLOCK_N=64)
        return out
