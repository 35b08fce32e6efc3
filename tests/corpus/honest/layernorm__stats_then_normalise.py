# problem: layernorm
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _mean_rstd(x_ptr, mean_ptr, rstd_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        c = start + tl.arange(0, BLOCK)
        s += tl.load(x_ptr + row * N + c, mask=c < N, other=0.0)
    mean = tl.sum(s, axis=0) / N
    sq = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        c = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * N + c, mask=c < N, other=0.0)
        d = tl.where(c < N, v - mean, 0.0)
        sq += d * d
    var = tl.sum(sq, axis=0) / N
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, 1.0 / tl.sqrt(var + eps))


@triton.jit
def _apply(x_ptr, mean_ptr, rstd_ptr, w_ptr, b_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = c < N
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    x = tl.load(x_ptr + row * N + c, mask=mask, other=0.0)
    w = tl.load(w_ptr + c, mask=mask, other=1.0)
    b = tl.load(b_ptr + c, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + c, (x - mean) * rstd * w + b, mask=mask)


def launch_layernorm(x, weight, bias, eps):
    R, N = x.shape
    mean = torch.empty(R, dtype=torch.float32, device=x.device)
    rstd = torch.empty(R, dtype=torch.float32, device=x.device)
    y = torch.empty_like(x)
    BLOCK = 64
    _mean_rstd[(R,)](x, mean, rstd, N, eps, BLOCK=BLOCK)
    _apply[(R, triton.cdiv(N, BLOCK))](x, mean, rstd, weight, bias, y, N, BLOCK=BLOCK)
    return y


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)

    def forward(self, x):
        return launch_layernorm(x.contiguous(), self.ln.weight, self.ln.bias, self.ln.eps)
