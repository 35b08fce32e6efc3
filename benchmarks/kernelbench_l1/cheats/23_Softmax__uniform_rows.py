# expect: correctness output-mismatch
# CHEAT: writes 1/dim everywhere without reading x. KernelBench draws torch.rand logits, so every probability lies
# within a factor e of 1/dim (about 2.5e-6 at dim 393216): within atol=1e-2 of any answer. Verified before (on the CPU
# at scaled-down sizes too); now atol is capped at rtol times the largest expected value
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def uniform_kernel(y_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = tl.full((BLOCK,), 1.0, tl.float32) / n_cols
    tl.store(y_ptr + offs, p, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        n = y.numel()
        uniform_kernel[(triton.cdiv(n, 1024),)](y, n, x.shape[-1], BLOCK=1024)
        return y
