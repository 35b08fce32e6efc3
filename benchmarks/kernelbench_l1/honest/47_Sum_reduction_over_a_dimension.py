import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _sum_cols_kernel(x_ptr, y_ptr, R, inner, num_i_blocks,
                     BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    # x viewed as (outer, R, inner) with inner > 1: one program = one outer index and
    # BLOCK_I contiguous inner positions; it walks down R accumulating a register tile.
    pid = tl.program_id(0)
    o = (pid // num_i_blocks).to(tl.int64)
    i_offs = (pid % num_i_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    i_mask = i_offs < inner
    r = tl.arange(0, BLOCK_R)
    base = o * R * inner
    acc = tl.zeros([BLOCK_R, BLOCK_I], tl.float32)
    for r0 in range(0, R, BLOCK_R):
        rr = r0 + r
        offs = base + rr[:, None].to(tl.int64) * inner + i_offs[None, :]
        mask = (rr[:, None] < R) & i_mask[None, :]
        acc += tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.sum(acc, axis=0)
    tl.store(y_ptr + o * inner + i_offs, s.to(y_ptr.dtype.element_ty), mask=i_mask)


@triton.jit
def _sum_rows_kernel(x_ptr, y_ptr, R, num_rows, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # reduction over the last (contiguous) dimension: ROWS rows per program
    pid = tl.program_id(0)
    rows = (pid * ROWS + tl.arange(0, ROWS)).to(tl.int64)
    row_mask = rows < num_rows
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([ROWS, BLOCK], tl.float32)
    for c0 in range(0, R, BLOCK):
        cc = c0 + cols
        mask = row_mask[:, None] & (cc[None, :] < R)
        acc += tl.load(x_ptr + rows[:, None] * R + cc[None, :], mask=mask, other=0.0).to(tl.float32)
    s = tl.sum(acc, axis=1)
    tl.store(y_ptr + rows, s.to(y_ptr.dtype.element_ty), mask=row_mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = self.dim % len(x.shape)
        x = x.contiguous()
        shape = list(x.shape)
        R = shape[dim]
        inner = 1
        for d in shape[dim + 1:]:
            inner = inner * d
        outer = x.numel() // (R * inner)
        out_shape = shape[:dim] + [1] + shape[dim + 1:]
        y = torch.empty(out_shape, dtype=x.dtype, device=x.device)
        if inner == 1:
            BLOCK = min(1024, triton.next_power_of_2(R))
            ROWS = max(1, min(4096 // BLOCK, 16))
            grid = (triton.cdiv(outer, ROWS),)
            _sum_rows_kernel[grid](x, y, R, outer, ROWS=ROWS, BLOCK=BLOCK, num_warps=4)
        else:
            # 128 columns x 64 rows per step, 16 warps: measured best on H200 at 128x4096x4095
            BLOCK_I = min(128, triton.next_power_of_2(inner))
            BLOCK_R = max(1, min(8192 // BLOCK_I, triton.next_power_of_2(R)))
            nw = 16 if BLOCK_R * BLOCK_I >= 8192 else 4
            num_i_blocks = triton.cdiv(inner, BLOCK_I)
            grid = (outer * num_i_blocks,)
            _sum_cols_kernel[grid](x, y, R, inner, num_i_blocks,
                                   BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, num_warps=nw)
        return y
