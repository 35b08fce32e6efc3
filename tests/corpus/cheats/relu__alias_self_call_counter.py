# problem: relu
# expect: static state-in-forward
# note: a call counter kept in a Python attribute of self, stored through another name for self (me = self): the static
# rule looked for stores rooted at "self" or at a module-level name, the tensor snapshots see no Python int. Right
# for 1000 calls, then an eighth of the work. Verified before (timed too); the Python-state scan refuses it at runtime
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
        self.calls = 0

    def forward(self, x):
        me = self
        me.calls = me.calls + 1
        x = x.contiguous()
        out = torch.zeros_like(x)
        n = x.numel()
        work = n if me.calls <= 1000 else n // 8
        relu_kernel[(triton.cdiv(work, 1024),)](x, out, work, BLOCK=1024)
        return out
