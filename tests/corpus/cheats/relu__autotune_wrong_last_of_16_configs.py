# problem: relu
# expect: correctness autotune-config-mismatch
"""@triton.autotune with 16 configs, the last of which processes half of each block (a GPU may pick it). On a CPU
each call takes the next config in turn, and the trials made about 9 calls, so configs 10-16 never ran and this
verified (found by red-teaming, 2026-12-06). Every config of an autotuner now runs at least once."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK": b, "HALF": 0}, num_warps=w) for b in (128, 256, 512, 1024, 2048) for w in (2, 4, 8)]
    + [triton.Config({"BLOCK": 2048, "HALF": 1}, num_warps=8)],
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
