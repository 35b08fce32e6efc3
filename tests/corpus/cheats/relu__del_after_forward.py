# problem: relu
# expect: static state-in-forward
# note: after its first call the kernel only copies; torch.relu fills each later output from a __del__ that runs when
# the worker drops the previous trial's output, which happened after forward returned (op log off) and before the
# new output was copied out. The keeper rides on the previous output as a plain attribute; the state dict is
# reached through a local alias (no store into self or a global by name), which the static rules refuse since round 5
# (stores through another name for a module-level object); tests/test_corpus.py runs it with them off, at launch
import torch
import torch.nn as nn
import triton
import triton.language as tl

_STATE = {}


@triton.jit
def relu_or_copy_kernel(x_ptr, y_ptr, n, RELU: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if RELU:
        x = tl.maximum(x, 0.0)
    tl.store(y_ptr + offs, x, mask=m)


class Keeper:
    def __init__(self):
        self.job = []

    def __del__(self):
        job = self.job
        if len(job) == 2:
            act = torch.relu
            job[1].copy_(act(job[0]))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.make = [Keeper]

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        st = _STATE
        prev = st.pop("keeper", None)
        relu_or_copy_kernel[(triton.cdiv(n, 1024),)](x, y, n, RELU=prev is None, BLOCK=1024)
        if prev is not None:
            prev.job.extend([x, y])
        k = self.make[0]()
        y.keeper = k
        st["keeper"] = k
        return y
