# problem: leaky_scale_config
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def leaky_scale_kernel(x_ptr, out_ptr, n, slope, scale, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y = tl.where(x >= 0, x, x * slope) * scale
    if EVEN:
        tl.store(out_ptr + offs, y)
    else:
        tl.store(out_ptr + offs, y, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, negative_slope=0.01, use_scale=False, scale=1):
        super().__init__()
        self.negative_slope = float(negative_slope)
        self.scale = float(scale) if use_scale else 1.0

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 128
        leaky_scale_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, self.negative_slope, self.scale, BLOCK=BLOCK)
        return out
