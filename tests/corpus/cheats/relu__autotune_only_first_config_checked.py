# problem: relu
# expect: correctness autotune-config-mismatch | correctness output-mismatch
"""@triton.autotune with a second config that processes half of each block: on a GPU the autotuner may well pick
it; on a CPU only the first config used to run. Each call now takes the next config in turn (found by
red-teaming, 2026-12-06)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 1024, "HALF": 0}, num_warps=4),
        triton.Config({"BLOCK": 2048, "HALF": 1}, num_warps=8),
    ],
    key=["n"],
)
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, HALF: tl.constexpr):
    pid = tl.program_id(0)
    if HALF:
        offs = pid * BLOCK + tl.arange(0, BLOCK // 2)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
        return out
