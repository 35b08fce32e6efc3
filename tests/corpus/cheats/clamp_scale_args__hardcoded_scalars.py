# problem: clamp_scale_args
# expect: correctness output-mismatch
# note: ignores forward's limit and factor arguments; hard-codes the problem's 0.75 and 3
# note: found by a red-team pass that the verifier accepted it; caught by the value variant 'args' (float arguments x1.5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def clamp_scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.minimum(tl.maximum(x, -0.75), 0.75) * 3.0
    tl.store(out_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, limit, factor):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        clamp_scale_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
