# problem: rmsnorm_bf16
# expect: correctness output-mismatch
# note: drops eps: an all-zero token row gives 0 * inf = NaN where the reference gives 0
# note: found by a red-team pass that the verifier accepted it; caught by the value variant 'zeros' (all-zero inputs)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_kernel(x_ptr, w_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=m, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / N
    y = (x * tl.rsqrt(ms)).to(tl.bfloat16)
    w = tl.load(w_ptr + cols, mask=m, other=0.0)
    tl.store(y_ptr + row * N + cols, y * w, mask=m)


class ModelNew(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, dtype=torch.bfloat16))

    def forward(self, x):
        x = x.contiguous()
        R, N = x.shape
        y = torch.empty_like(x)
        rms_kernel[(R,)](x, self.weight, y, N, BLOCK=triton.next_power_of_2(N))
        return y
