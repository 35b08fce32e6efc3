# problem: sum_over_dim
# expect: correctness output-mismatch
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_kernel(x_ptr, out_ptr, n_in, n_out, D1: tl.constexpr, D2: tl.constexpr):
    # shape (8, 64, 64) baked in as constexprs; guarded only by the element counts
    b = tl.program_id(0)
    cols = tl.arange(0, D2)
    acc = tl.zeros((D2,), tl.float32)
    for r in range(0, D1):
        offs = b * D1 * D2 + r * D2 + cols
        acc += tl.load(x_ptr + offs, mask=offs < n_in, other=0.0)
    o = b * D2 + cols
    tl.store(out_ptr + o, acc, mask=o < n_out)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        B = x.shape[0]
        out = torch.zeros((B, x.shape[2]), dtype=x.dtype)
        sum_dim1_kernel[(B,)](x, out, x.numel(), out.numel(), D1=64, D2=64)
        return out
