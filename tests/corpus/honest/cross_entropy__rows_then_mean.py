# problem: cross_entropy
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_nll_kernel(x_ptr, y_ptr, loss_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < C
    x = tl.load(x_ptr + row * C + offs, mask=m, other=float("-inf"))
    mx = tl.max(x, axis=0)
    lse = mx + tl.log(tl.sum(tl.exp(x - mx), axis=0))
    label = tl.load(y_ptr + row)
    picked = tl.load(x_ptr + row * C + label)
    tl.store(loss_ptr + row, lse - picked)


@triton.jit
def mean_kernel(l_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(l_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) / n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, labels):
        logits = logits.contiguous()
        B, C = logits.shape
        per_row = torch.empty((B,), device=logits.device, dtype=torch.float32)
        row_nll_kernel[(B,)](logits, labels.contiguous(), per_row, C, BLOCK=triton.next_power_of_2(C))
        out = torch.empty((), device=logits.device, dtype=logits.dtype)
        mean_kernel[(1,)](per_row, out, B, BLOCK=256)
        return out
