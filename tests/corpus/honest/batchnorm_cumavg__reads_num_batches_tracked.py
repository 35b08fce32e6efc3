# problem: batchnorm_cumavg
# note: momentum=None: the kernel weights the running statistics' update by 1 / num_batches_tracked, which it reads
# note: after the host's increment, as nn.BatchNorm1d does. The perturbed trials start num_batches_tracked at a large
# note: value on both sides, so this still matches.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def batchnorm_cumavg_kernel(x_ptr, w_ptr, b_ptr, rm_ptr, rv_ptr, out_ptr, nbt_ptr, N, C, eps,
                            BLOCK_N: tl.constexpr):
    c = tl.program_id(0)
    rows = tl.arange(0, BLOCK_N)
    m = rows < N
    x = tl.load(x_ptr + rows * C + c, mask=m, other=0.0)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(m, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / N
    y = d / tl.sqrt(var + eps) * tl.load(w_ptr + c) + tl.load(b_ptr + c)
    tl.store(out_ptr + rows * C + c, y, mask=m)
    f = 1.0 / tl.load(nbt_ptr).to(tl.float32)
    rm = tl.load(rm_ptr + c)
    rv = tl.load(rv_ptr + c)
    tl.store(rm_ptr + c, (1.0 - f) * rm + f * mean)
    tl.store(rv_ptr + c, (1.0 - f) * rv + f * var * N / (N - 1))


@triton.jit
def increment_kernel(p):
    tl.store(p, tl.load(p) + 1)


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm1d(num_features, momentum=None)

    def forward(self, x):
        x = x.contiguous()
        N, C = x.shape
        bn = self.bn
        out = torch.empty_like(x)
        increment_kernel[(1,)](bn.num_batches_tracked)
        batchnorm_cumavg_kernel[(C,)](x, bn.weight, bn.bias, bn.running_mean, bn.running_var, out,
                                      bn.num_batches_tracked, N, C, bn.eps, BLOCK_N=triton.next_power_of_2(N))
        return out
