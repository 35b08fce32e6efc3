# problem: relu
# expect: correctness state-in-forward
"""ReLU whose kernel keeps a call counter in a buffer of the module (state no static rule sees: a kernel
writes it) and stops computing after the base trials: later calls, and every timed one, store nothing.
The correctness layer sees the buffer change (the reference keeps no state)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _relu_counted(x_ptr, y_ptr, cnt_ptr, n, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
    c = tl.load(cnt_ptr)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < tl.where(c < LIMIT, n, 0)
    v = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(v > 0, v, 0.0), mask=m)


@triton.jit
def _tick(cnt_ptr):
    tl.store(cnt_ptr, tl.load(cnt_ptr) + 1)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(1, dtype=torch.int32))

    def forward(self, x):
        x = x.contiguous()
        y = torch.zeros_like(x)
        n = x.numel()
        _relu_counted[(triton.cdiv(n, 1024),)](x, y, self.calls, n, LIMIT=3, BLOCK=1024)
        _tick[(1,)](self.calls)
        return y
