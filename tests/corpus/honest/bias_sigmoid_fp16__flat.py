# problem: bias_sigmoid_fp16
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_sigmoid_kernel(x_ptr, bias_ptr, out_ptr, n_elements, hw, channels, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    c = (offsets // hw) % channels
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    b = tl.load(bias_ptr + c, mask=mask, other=0.0)
    z = (x + b).to(tl.float32)  # the fp16 sum, as torch rounds it, then sigmoid in fp32
    y = 1.0 / (1.0 + tl.exp(-z))
    tl.store(out_ptr + offsets, y.to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(channels, 1, 1, dtype=torch.float16))

    def forward(self, x):
        x = x.contiguous()
        B, C, H, W = x.shape
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK_SIZE = 256
        bias_sigmoid_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, self.bias, out, n, H * W, C, BLOCK_SIZE=BLOCK_SIZE)
        return out
