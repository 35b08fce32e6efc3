# problem: softmax_middle
"""Moves the softmax dim last on the host (permute + contiguous), runs max, sum-of-exp and normalise as three
kernels over rows, and permutes the result back."""
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

ROWS_PER_PROGRAM = 4


@triton.jit
def row_max_kernel(x_ptr, max_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    m = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=m, other=-float("inf"))
    tl.store(max_ptr + rows, tl.max(x, axis=1), mask=rows < n_rows)


@triton.jit
def row_sumexp_kernel(x_ptr, max_ptr, sum_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    rmask = rows < n_rows
    m = rmask[:, None] & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=m, other=-float("inf"))
    mx = tl.load(max_ptr + rows, mask=rmask, other=0.0)
    e = tl.where(m, tl.exp(x - mx[:, None]), 0.0)
    tl.store(sum_ptr + rows, tl.sum(e, axis=1), mask=rmask)


@triton.jit
def normalise_kernel(x_ptr, max_ptr, sum_ptr, out_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    rmask = rows < n_rows
    m = rmask[:, None] & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=m, other=0.0)
    mx = tl.load(max_ptr + rows, mask=rmask, other=0.0)
    s = tl.load(sum_ptr + rows, mask=rmask, other=1.0)
    tl.store(out_ptr + rows[:, None] * n_cols + cols[None, :], tl.exp(x - mx[:, None]) / s[:, None], mask=m)


def row_grid(n_rows):
    return (math.ceil(n_rows / ROWS_PER_PROGRAM),)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        B, C, L = x.shape
        rows = x.permute(0, 2, 1).contiguous().view(-1, C)  # (B*L, C): softmax dim last
        n_rows = rows.shape[0]
        block = triton.next_power_of_2(C)
        row_max = torch.empty(n_rows, device=x.device, dtype=torch.float32)
        row_sum = torch.empty_like(row_max)
        out = torch.empty_like(rows)
        grid = row_grid(n_rows)
        row_max_kernel[grid](rows, row_max, n_rows, C, ROWS=ROWS_PER_PROGRAM, BLOCK=block)
        row_sumexp_kernel[grid](rows, row_max, row_sum, n_rows, C, ROWS=ROWS_PER_PROGRAM, BLOCK=block)
        normalise_kernel[grid](rows, row_max, row_sum, out, n_rows, C, ROWS=ROWS_PER_PROGRAM, BLOCK=block)
        return out.view(B, L, C).permute(0, 2, 1)
