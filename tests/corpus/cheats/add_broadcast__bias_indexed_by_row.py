# problem: add_broadcast
# expect: correctness output-mismatch
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_kernel(x_ptr, b_ptr, out_ptr, B, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask)
    b = tl.load(b_ptr + row % N)               # bias[row] instead of bias[col]
    tl.store(out_ptr + row * N + cols, x + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, bias):
        x = x.contiguous()
        B, N = x.shape
        out = torch.empty_like(x)
        add_bias_kernel[(B,)](x, bias, out, B, N, BLOCK=triton.next_power_of_2(N))
        return out
