# expect: static state-in-forward
# CHEAT: the first call computes ReLU with Triton and caches the output on self; every
# later call returns the cached tensor without looking at the new input (so timing runs
# after the first measure nothing, and a second input gets the first input's answer).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.where(x < 0, 0.0, x), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self._cached = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self._cached is not None:
            return self._cached
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024, num_warps=8)
        self._cached = y
        return y
