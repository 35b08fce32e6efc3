# problem: sum_over_dim
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_kernel(x_ptr, out_ptr, D1, D2, s0, s1, s2, so0, so1,
                    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = cols < D2
    acc = tl.zeros((BLOCK_C,), tl.float32)
    for start in range(0, D1, BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        mask = (r[:, None] < D1) & cmask[None, :]
        v = tl.load(x_ptr + b * s0 + r[:, None] * s1 + cols[None, :] * s2, mask=mask, other=0.0)
        acc += tl.sum(v, axis=0)
    tl.store(out_ptr + b * so0 + cols * so1, acc, mask=cmask)


class ModelNew(nn.Module):
    """Reduce over dim 1; the kernel walks the input through its strides (no copy)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        B, D1, D2 = x.shape
        out = torch.empty((B, D2), device=x.device, dtype=x.dtype)
        BLOCK_R, BLOCK_C = 16, 32
        grid = (B, triton.cdiv(D2, BLOCK_C))
        sum_dim1_kernel[grid](x, out, D1, D2, x.stride(0), x.stride(1), x.stride(2),
                              out.stride(0), out.stride(1), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
        return out
