# problem: rmsnorm_bf16
# note: multiplies two bf16 tiles (y * w), as the reference does; Triton's interpreter computed bf16 arithmetic on the
# values' bit patterns (1e38 for x * x), so on a CPU this was rejected ('infinities differ') until verifier/_interp_bf16.py
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, D, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < D
    x = tl.load(x_ptr + row * D + offs, mask=m, other=0.0).to(tl.float32)
    r = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / D + eps)
    y = (x * r).to(tl.bfloat16)
    w = tl.load(w_ptr + offs, mask=m)
    tl.store(y_ptr + row * D + offs, y * w, mask=m)


class ModelNew(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, dtype=torch.bfloat16))

    def forward(self, x):
        x = x.contiguous()
        D = x.shape[-1]
        y = torch.empty_like(x)
        rmsnorm_kernel[(x.numel() // D,)](x, self.weight, y, D, self.eps, BLOCK=triton.next_power_of_2(D))
        return y
