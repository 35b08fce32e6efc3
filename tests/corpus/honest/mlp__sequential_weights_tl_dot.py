# problem: mlp
# note: keeps the reference's nn.Sequential and reads each Linear's weight and bias (self.net[0], self.net[2])
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, RELU: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, w)
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if RELU:
        acc = tl.maximum(acc, 0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _linear(x, lin, relu):
    M, K = x.shape
    N = lin.weight.shape[0]
    y = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
    linear_kernel[grid](x, lin.weight, lin.bias, y, M, N, K, RELU=relu, BM=16, BN=32, BK=32)
    return y


class ModelNew(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_out))

    def forward(self, x):
        h = _linear(x.contiguous(), self.net[0], True)
        return _linear(h, self.net[2], False)
