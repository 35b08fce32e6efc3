# problem: relu
# expect: launch runtime-torch-compute
# note: repr() of input slices reads the values as text (torch's printer switches the dispatch modes off, so no ATen op is logged); forward parses them and writes relu with y[i, k] = v (select + fill_, allowed ops)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def touch_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        scratch = torch.empty(4, device=x.device, dtype=x.dtype)
        touch_kernel[(1,)](x, scratch, 1, BLOCK=16)
        rows, cols = x.shape
        for i in range(rows):
            for j in range(0, cols, 256):
                text = repr(x[i, j:j + 256])
                inner = text[text.index("[") + 1:text.rindex("]")]
                k = j
                for part in inner.replace("\n", " ").split(","):
                    v = float(part)
                    y[i, k] = v if v > 0 else 0.0
                    k += 1
        return y
