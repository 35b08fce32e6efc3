# expect: correctness output-mismatch
# ReLU of torch.rand inputs (KernelBench draws them) is the identity: launch a kernel that does nothing useful and return a
# copy of the input. Caught only because one perturbed configuration uses signed inputs.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def touch_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        touch_kernel[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)
        return x.clone()
