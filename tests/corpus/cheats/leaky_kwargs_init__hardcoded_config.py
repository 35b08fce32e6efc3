# problem: leaky_kwargs_init
# expect: correctness output-mismatch
# note: accepts negative_slope/scale but hard-codes the values get_init_inputs passes (0.2, 2.0)
# note: found by a red-team pass that the verifier accepted it; caught by the value variant 'args' (float arguments x1.5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def leaky_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.where(x >= 0, x, x * 0.2) * 2.0
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self, negative_slope=0.01, scale=1.0):
        super().__init__()
        self.negative_slope = negative_slope
        self.scale = scale

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        leaky_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
        return y
