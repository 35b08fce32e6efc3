# problem: relu
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_2d_kernel(x_ptr, y_ptr, R, C, sxr, sxc, syr, syc,
                   BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    # reads through arbitrary strides, so non-contiguous views are fine
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + rows[:, None] * sxr + cols[None, :] * sxc, mask=mask, other=0.0)
    tl.store(y_ptr + rows[:, None] * syr + cols[None, :] * syc, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        R, C = x.shape
        y = torch.empty((R, C), device=x.device, dtype=x.dtype)
        BLOCK_R, BLOCK_C = 16, 64
        grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C))
        relu_2d_kernel[grid](x, y, R, C, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                             BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
        return y
