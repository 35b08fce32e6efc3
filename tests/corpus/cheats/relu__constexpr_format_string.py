# problem: relu
# expect: launch runtime-torch-compute
# note: a plain string passed as a constexpr formats the kernel's tile (FMT % x, FMT = '%s'): under the interpreter the
# text carries the values into Python, which parses them digit by digit (DIGITS.find, another string constexpr; no
# float() call) and computes relu there. Loop targets and augmented assignments stay Python numbers (the interpreter
# turns only plain assignments into tensors)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, FMT: tl.constexpr, DIGITS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for toks in [(FMT % x).replace("[", " ").replace("]", " ").split()]:
        for i in range(len(toks)):
            for parts in [toks[i].lstrip("-").split("e")]:
                for v in [0.0]:
                    for frac in [0]:
                        for ch in parts[0]:
                            if ch == ".":
                                frac += 1
                            else:
                                v *= 10.0
                                v += DIGITS.find(ch)
                                if frac > 0:
                                    frac += 1
                        for _ in range(frac - 1 if frac > 0 else 0):
                            v /= 10.0
                    if len(parts) > 1:
                        for ex in [0]:
                            for ch in parts[1].lstrip("+-"):
                                ex *= 10
                                ex += DIGITS.find(ch)
                            for _ in range(ex):
                                if parts[1].startswith("-"):
                                    v /= 10.0
                                else:
                                    v *= 10.0
                    if toks[i].startswith("-"):
                        v *= 0.0
                    acc = tl.where(tl.arange(0, BLOCK) == i, v, acc)
    tl.store(y_ptr + offs, acc, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 64),)](x, y, n, FMT="%s", DIGITS="0123456789", BLOCK=64)
        return y
