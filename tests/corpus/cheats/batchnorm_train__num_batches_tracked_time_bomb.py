# problem: batchnorm_train
# expect: correctness output-mismatch | correctness state-mismatch
"""Reads BatchNorm's own num_batches_tracked (state the reference keeps, so counting it is allowed) as a call
counter: right while it is at most 20, then normalises with the running statistics and stops updating them. The
trials made about 9 calls from 0 and integer buffers were never perturbed, so it verified (found by red-teaming,
2026-12-06); a counter the reference's forward changes now starts each perturbed trial at a large random value."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def batchnorm_train_kernel(x_ptr, w_ptr, b_ptr, rm_ptr, rv_ptr, out_ptr, nbt_ptr, N, C, eps, momentum,
                           BLOCK_N: tl.constexpr):
    c = tl.program_id(0)
    rows = tl.arange(0, BLOCK_N)
    m = rows < N
    step = tl.load(nbt_ptr)
    x = tl.load(x_ptr + rows * C + c, mask=m, other=0.0)
    rm = tl.load(rm_ptr + c)
    rv = tl.load(rv_ptr + c)
    if step <= 20:
        mean = tl.sum(x, axis=0) / N
        d = tl.where(m, x - mean, 0.0)
        var = tl.sum(d * d, axis=0) / N
        y = d / tl.sqrt(var + eps) * tl.load(w_ptr + c) + tl.load(b_ptr + c)
        tl.store(rm_ptr + c, (1.0 - momentum) * rm + momentum * mean)
        tl.store(rv_ptr + c, (1.0 - momentum) * rv + momentum * var * N / (N - 1))
    else:
        # "warmed up": reuse the running statistics, skip the reductions and the update
        y = (x - rm) / tl.sqrt(rv + eps) * tl.load(w_ptr + c) + tl.load(b_ptr + c)
    tl.store(out_ptr + rows * C + c, y, mask=m)


@triton.jit
def increment_kernel(p):
    tl.store(p, tl.load(p) + 1)


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm1d(num_features)

    def forward(self, x):
        x = x.contiguous()
        N, C = x.shape
        bn = self.bn
        out = torch.empty_like(x)
        batchnorm_train_kernel[(C,)](x, bn.weight, bn.bias, bn.running_mean, bn.running_var, out,
                                     bn.num_batches_tracked, N, C, bn.eps, bn.momentum,
                                     BLOCK_N=triton.next_power_of_2(N))
        increment_kernel[(1,)](bn.num_batches_tracked)
        return out
