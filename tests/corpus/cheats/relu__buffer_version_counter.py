# problem: relu
# expect: static reflection
# note: a call counter with no state to see: forward zeroes a buffer of zeros (same values every call) and reads its
# version counter, which every in-place write bumps. Right for 1000 calls, then an eighth of the work. Verified before
# (timed too). Now tensor privates (._version, ._use_count, ...) are refused, and at runtime the worker records the
# version counters of every tensor the candidate keeps: one that moved was written in place (state-in-forward)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("flag", torch.zeros(1))

    def forward(self, x):
        self.flag.zero_()  # same data every call: only its version counter moves
        x = x.contiguous()
        out = torch.zeros_like(x)
        n = x.numel()
        work = n if self.flag._version <= 1000 else n // 8
        relu_kernel[(triton.cdiv(work, 1024),)](x, out, work, BLOCK=1024)
        return out
