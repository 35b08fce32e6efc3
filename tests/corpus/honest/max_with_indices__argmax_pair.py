# problem: max_with_indices
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, val_ptr, idx_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=float("-inf"))
    best, where = tl.max(x, axis=0, return_indices=True, return_indices_tie_break_left=True)
    tl.store(val_ptr + row, best)
    tl.store(idx_ptr + row, where.to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_rows, n_cols = x.shape
        values = torch.empty(n_rows, device=x.device, dtype=x.dtype)
        indices = torch.empty(n_rows, device=x.device, dtype=torch.int64)
        row_max_kernel[(n_rows,)](x, values, indices, n_cols, x.stride(0), BLOCK=triton.next_power_of_2(n_cols))
        return values, indices
