# problem: linear_relu
# expect: static torch-compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(h_ptr, b_ptr, y_ptr, total, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    h = tl.load(h_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs % N, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(h + b, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        h = torch.matmul(x, self.linear.weight.t()).contiguous()
        y = torch.empty_like(h)
        total = h.numel()
        bias_relu_kernel[(triton.cdiv(total, 1024),)](h, self.linear.bias, y, total, h.shape[1], BLOCK=1024)
        return y
