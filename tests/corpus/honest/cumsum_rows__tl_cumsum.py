# problem: cumsum_rows
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_o, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=m, other=0.0)
    tl.store(out_ptr + row * stride_o + cols, tl.cumsum(x, axis=0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty_like(x)
        cumsum_kernel[(n_rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(n_cols))
        return out
