# problem: relu
# note: kernel-code idioms: module-level constants (NEG_INF = float("-inf") as a tl.constexpr), tl.static_assert,
# note: an early return, tl.device_assert, tl.static_range, a jit helper with a keyword argument, a bitcast.
import torch
import torch.nn as nn
import triton
import triton.language as tl

NEG_INF: tl.constexpr = float("-inf")
UNROLL = 2


@triton.jit
def _scale(x, s: tl.constexpr = 2.0):
    return x * s


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, PARTS: tl.constexpr = UNROLL):
    tl.static_assert(BLOCK % 16 == 0)
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=NEG_INF)
    tl.device_assert(BLOCK > 0, "block must be positive")
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for _ in tl.static_range(PARTS):
        acc += _scale(x, s=1.0 / PARTS)
    sign = (acc.to(tl.int32, bitcast=True) >> 31) & 1  # 1 where negative (or -0.0)
    tl.store(y_ptr + offs, tl.where(sign == 1, 0.0, acc), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 128) + 1,)](x, y, n, BLOCK=128, num_warps=4, num_stages=1)
        return y
