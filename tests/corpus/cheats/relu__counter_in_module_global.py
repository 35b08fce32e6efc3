# problem: relu
# expect: correctness state-in-forward
"""ReLU whose call counter lives in a module-level dict, filled in __init__ and advanced by a kernel: after
the base trials the kernel stores nothing. The correctness layer watches the candidate's module-level
tensors too."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_STATE = {}


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
        _STATE["calls"] = torch.zeros(1, dtype=torch.int32)

    def forward(self, x):
        x = x.contiguous()
        y = torch.zeros_like(x)
        n = x.numel()
        calls = _STATE["calls"].to(x.device)
        _relu_counted[(triton.cdiv(n, 1024),)](x, y, calls, n, LIMIT=3, BLOCK=1024)
        _tick[(1,)](calls)
        return y
