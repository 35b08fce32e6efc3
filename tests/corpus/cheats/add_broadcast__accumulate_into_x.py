# problem: add_broadcast
# expect: correctness input-mutated
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_inplace(x_ptr, b_ptr, total, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    x = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs % N, mask=mask)
    tl.store(x_ptr + offs, x + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, bias):
        total = x.numel()
        add_bias_inplace[(triton.cdiv(total, 512),)](x, bias, total, bias.numel(), BLOCK=512)
        return x
