# problem: sum_over_dim
# expect: correctness cross-program-race
"""Split-K without atomics: programs along grid axis 2 each sum a chunk of dim 1 and add it into the output with a
plain load and store. Triton's interpreter runs the programs in order, so every partial lands and the sum is right
on a CPU; on a GPU the chunks run at once and overwrite each other's partial sums."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_split_kernel(x_ptr, out_ptr, D1, D2, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    r = tl.program_id(2) * BLOCK_R + tl.arange(0, BLOCK_R)
    cmask = cols < D2
    mask = (r[:, None] < D1) & cmask[None, :]
    v = tl.load(x_ptr + b * D1 * D2 + r[:, None] * D2 + cols[None, :], mask=mask, other=0.0)
    o = out_ptr + b * D2 + cols
    tl.store(o, tl.load(o, mask=cmask, other=0.0) + tl.sum(v, axis=0), mask=cmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        B, D1, D2 = x.shape
        out = torch.zeros((B, D2), device=x.device, dtype=torch.float32)
        grid = (B, triton.cdiv(D2, 32), triton.cdiv(D1, 16))
        sum_dim1_split_kernel[grid](x, out, D1, D2, BLOCK_R=16, BLOCK_C=32)
        return out.to(x.dtype)
