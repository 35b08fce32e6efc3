# problem: softmax_wide
# expect: correctness output-mismatch
# note: writes 1/n_cols everywhere, reading nothing. Over rows of 8192, every probability of randn logits is below
# 0.01, so the uniform answer was within atol=1e-2 of the reference everywhere (KernelBench's softmax at dim 16384
# is the same on a GPU). Verified before; now the absolute tolerance is at most rtol times the output's largest value
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def uniform_kernel(y_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = tl.full((BLOCK,), 1.0, tl.float32) / n_cols
    tl.store(y_ptr + offs, p, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        n = y.numel()
        uniform_kernel[(triton.cdiv(n, 1024),)](y, n, x.shape[-1], BLOCK=1024)
        return y
