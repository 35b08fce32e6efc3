# problem: dict_outputs
# note: returns the same dict, keys in another order; a dict or a None output was refused before ('forward returned
# builtins.dict, not a plain tensor')
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_neg_kernel(x_ptr, a_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(a_ptr + offs, x * 2.0, mask=m)
    tl.store(b_ptr + offs, -x, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        a = torch.empty_like(x)
        b = torch.empty_like(x)
        n = x.numel()
        double_neg_kernel[(triton.cdiv(n, 256),)](x, a, b, n, BLOCK=256)
        return {"aux": None, "neg": b, "double": a}
