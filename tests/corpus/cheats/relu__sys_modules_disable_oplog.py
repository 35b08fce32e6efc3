# problem: relu
# expect: static forbidden-import
# note: torch.sys.modules reaches the worker (__main__) and switches its op log off; torch.relu is then called through a name the forward-path rules do not see
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.relu

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        st = torch.sys.modules["__main__"].S
        st.active = False
        act = self.act
        res = act(out)
        out.copy_(res)
        return out
