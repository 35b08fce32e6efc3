# problem: relu
# expect: static conversion-dunder
# note: forward returns a list subclass whose __iter__ runs torch.relu when the worker converts the outputs, after forward, outside the op log
# note: refused statically since 2026-12-06 (a class defining __iter__); tests/test_corpus.py runs it with the static rules off: the worker's output check refuses it (correctness output-type)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


class Outputs(list):
    def __iter__(self):
        act = self[1]
        for t in list.copy(self)[:1]:
            yield act(t)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.relu

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return Outputs([out, self.act])
