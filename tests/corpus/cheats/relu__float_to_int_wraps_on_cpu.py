# problem: relu
# expect: correctness output-mismatch
"""Tells the interpreter from a GPU by arithmetic: 3e9 cast to int32 wrapped to INT_MIN in numpy and saturates
on a GPU. The interpreter's float-to-int casts saturate now (found by red-teaming, 2026-12-06)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, big, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    on_gpu = (tl.zeros([BLOCK], tl.float32) + big).to(tl.int32) > 0
    m = (offs < n) & ((offs % BLOCK < BLOCK // 2) | (on_gpu == 0))
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, 3.0e9, BLOCK=1024)
        return out
