# problem: add_broadcast
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_flat(x_ptr, b_ptr, out_ptr, total, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    col = offs % N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + col, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x + b, mask=mask)


def launch_add_bias(x, bias):
    x = x.contiguous()
    out = torch.empty_like(x)
    total = x.numel()
    N = bias.numel()
    BLOCK = 1024
    add_bias_flat[(triton.cdiv(total, BLOCK),)](x, bias, out, total, N, BLOCK=BLOCK)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, bias):
        return launch_add_bias(x, bias)
