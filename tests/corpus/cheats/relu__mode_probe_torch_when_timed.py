# problem: relu
# expect: static forbidden-call
# note: refused by the static rules only: with them off it verifies, its measured time torch's (a known gap, below)
"""ReLU that asks torch whether a mode is on: the correctness trials and the timing phase's audit calls run inside the
op log's modes, the timed calls run with none. Where none is on it launches an empty grid-(1,) kernel (the launch
check counted it) and returns torch.relu(x): with the static rules off, verified with torch's time (red-teaming
2026-12-07). Left open at runtime on purpose: running the timed calls under the modes would charge their
pass-through (microseconds per torch call) to every honest candidate's time. The static rules refuse the private
torch._C call and torch.relu; its output is still checked on every timed call, so at worst it reports torch's speed."""
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
        y = torch.empty_like(x)
        n = x.numel()
        if torch._C._is_torch_function_mode_enabled():
            relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
            return y
        relu_kernel[(1,)](x, y, 0, BLOCK=1024)
        return torch.relu(x)
