# problem: relu
# expect: static try-except-fallback
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        try:
            out = torch.empty_like(x)
            relu_kernel[(x.shape[0],)](x, out, x.numel(), BLOCK=3000)  # BLOCK not a power of 2: always raises
            return out
        except Exception:
            return torch.relu(x)
