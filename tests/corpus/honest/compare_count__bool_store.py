# problem: compare_count
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def compare_count_kernel(x_ptr, y_ptr, mask_ptr, count_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=valid, other=0.0)
    y = tl.load(y_ptr + row * n_cols + cols, mask=valid, other=0.0)
    gt = x > y
    tl.store(mask_ptr + row * n_cols + cols, gt, mask=valid)
    count = tl.sum(tl.where(gt & valid, 1, 0).to(tl.int64), axis=0)
    tl.store(count_ptr + row, count)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        x = x.contiguous()
        y = y.contiguous()
        n_rows, n_cols = x.shape
        mask = torch.empty((n_rows, n_cols), dtype=torch.bool, device=x.device)
        count = torch.empty((n_rows,), dtype=torch.int64, device=x.device)
        compare_count_kernel[(n_rows,)](x, y, mask, count, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return mask, count
