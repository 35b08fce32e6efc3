# problem: relu
# expect: static reference-reuse
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def noop_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


class ModelNew(Model):  # noqa: F821  -- Model is in scope when the harness concatenates sources
    def forward(self, x):
        noop_kernel[(1,)](x, x.numel(), BLOCK=16)
        return super().forward(x)
