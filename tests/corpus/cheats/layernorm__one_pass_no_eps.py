# problem: layernorm
# expect: correctness output-mismatch
# note: one-pass variance E[x^2]-E[x]^2 (cancellation for inputs with a large mean) and eps dropped (constant rows -> NaN)
# note: found by a red-team pass that the verifier accepted it; caught by the value variant 'zeros' (all-zero inputs)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / N
    var = tl.sum(x * x, axis=0) / N - mean * mean
    rstd = 1.0 / tl.sqrt(var)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, (x - mean) * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)

    def forward(self, x):
        x = x.contiguous()
        R, N = x.shape
        y = torch.empty_like(x)
        layernorm_kernel[(R,)](x, self.ln.weight, self.ln.bias, y, N, x.stride(0), BLOCK=triton.next_power_of_2(N))
        return y
