# problem: layernorm
# expect: static torch-compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, mean_ptr, rstd_ptr, w_ptr, b_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < N
    x = tl.load(x_ptr + row * N + c, mask=mask)
    mu = tl.load(mean_ptr + row)
    rs = tl.load(rstd_ptr + row)
    w = tl.load(w_ptr + c, mask=mask)
    b = tl.load(b_ptr + c, mask=mask)
    tl.store(y_ptr + row * N + c, (x - mu) * rs * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)

    def forward(self, x):
        R, N = x.shape
        mean = torch.mean(x, dim=1)                                       # torch does the reduction
        rstd = torch.rsqrt(torch.var(x, dim=1, unbiased=False) + self.ln.eps)
        y = torch.empty_like(x)
        affine_kernel[(R,)](x, mean, rstd, self.ln.weight, self.ln.bias, y, N,
                            BLOCK=triton.next_power_of_2(N))
        return y
