# problem: add_broadcast
# expect: static forbidden-import
import threading

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_kernel(x_ptr, b_ptr, out_ptr, total, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    x = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs % N, mask=mask)
    tl.store(out_ptr + offs, x + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, bias):
        out = torch.empty_like(x)
        total = x.numel()
        # launch on a background thread and return immediately: the timer sees ~0 s
        t = threading.Thread(
            target=lambda: add_bias_kernel[(triton.cdiv(total, 256),)](x, bias, out, total, bias.numel(), BLOCK=256),
            daemon=True,
        )
        t.start()
        return out
