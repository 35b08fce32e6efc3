# problem: relu
# expect: performance timed-output-mismatch
"""ReLU that tells a timed call from a correctness trial without keeping any state: the timing phase refills its input
buffers in place (copy_), which bumps the tensor's version counter, while every correctness trial gets a fresh
clone (version 0). When timed it does an eighth of the work. No static rule read `._version` (refused since round 5;
tests/test_timing_phase.py runs it with the static rules off), and the correctness trials cannot see it; the timed
calls' outputs, checked against the reference, do."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(v > 0, v, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.zeros_like(x)
        n = x.numel()
        todo = n if x._version == 0 else n // 8
        relu_kernel[(triton.cdiv(todo, 1024),)](x, y, todo, BLOCK=1024)
        return y
