# problem: batchnorm_train
# expect: correctness state-mismatch
# note: normalises with batch statistics but never updates running_mean / running_var / num_batches_tracked, and ignores
# note: eval mode: model.eval() afterwards normalises with batch stats instead of the (never updated) running stats
# note: found by a red-team pass that the verifier accepted it (a stateful reference let any candidate state pass); caught since the supervisor compares the tensors both forwards change (2026-12-06)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def batchnorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, N, C, eps, BLOCK_N: tl.constexpr):
    c = tl.program_id(0)
    rows = tl.arange(0, BLOCK_N)
    m = rows < N
    x = tl.load(x_ptr + rows * C + c, mask=m, other=0.0)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(m, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / N
    y = d / tl.sqrt(var + eps) * tl.load(w_ptr + c) + tl.load(b_ptr + c)
    tl.store(out_ptr + rows * C + c, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm1d(num_features)

    def forward(self, x):
        x = x.contiguous()
        N, C = x.shape
        bn = self.bn
        out = torch.empty_like(x)
        batchnorm_kernel[(C,)](x, bn.weight, bn.bias, out, N, C, bn.eps, BLOCK_N=triton.next_power_of_2(N))
        return out
