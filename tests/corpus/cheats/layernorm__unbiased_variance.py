# problem: layernorm
# expect: correctness output-mismatch
# tolerance: 1e-4
# note: n/(n-1) at n=256 is a 0.2% error, inside KernelBench's fp32 tolerance (1e-2); a stricter
# tolerance (VerifyConfig(atol=1e-4, rtol=1e-4)) catches it.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < N
    x = tl.load(x_ptr + row * N + c, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / (N - 1)     # unbiased: LayerNorm uses the biased estimate
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + c, mask=mask)
    b = tl.load(b_ptr + c, mask=mask)
    tl.store(y_ptr + row * N + c, d * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)

    def forward(self, x):
        x = x.contiguous()
        R, N = x.shape
        y = torch.empty_like(x)
        layernorm_kernel[(R,)](x, self.ln.weight, self.ln.bias, y, N, self.ln.eps,
                               BLOCK=triton.next_power_of_2(N))
        return y
