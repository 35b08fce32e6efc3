# problem: matmul
# expect: correctness output-mismatch
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, a_numel, b_numel, c_numel,
                  K: tl.constexpr, N: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # leading dimensions K=128, N=64 baked in; memory guarded only by the element counts
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a_off = rm[:, None] * K + rk[None, :]
        b_off = rk[:, None] * N + rn[None, :]
        a = tl.load(a_ptr + a_off, mask=a_off < a_numel, other=0.0)
        b = tl.load(b_ptr + b_off, mask=b_off < b_numel, other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    c_off = rm[:, None] * N + rn[None, :]
    tl.store(c_ptr + c_off, acc, mask=c_off < c_numel)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        c = torch.zeros((a.shape[0], b.shape[1]), dtype=a.dtype)
        matmul_kernel[(2, 2)](a, b, c, a.numel(), b.numel(), c.numel(),   # M = N = 64 -> 2 x 2 tiles of 32
                              K=128, N=64, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        return c
