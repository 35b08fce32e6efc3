"""A trusted kernel a worker compiles and runs while it warms up, before any job exists.

The first Triton compile in a process pays one-time costs (loading the compiler's passes and the LLVM
backend, the first ptxas run, building the launcher); paid here, they are off the path of the candidate
that arrives next. Its own file: @triton.jit reads a kernel's source from the module that defines it."""
from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def warm_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.sum(v, axis=0)
    tl.store(y_ptr + offs, (tl.maximum(v, 0.0) + s * 0.0).to(y_ptr.dtype.element_ty), mask=mask)


def run(device: str) -> None:
    """Compile and launch the kernel once on `device` (cpu: Triton's interpreter)."""
    import torch

    x = torch.randn(1000, device=device)
    y = torch.empty_like(x)
    warm_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    if device == "cuda":
        torch.cuda.synchronize()
    if not torch.equal(y, torch.relu(x)):
        raise RuntimeError("the warm-up kernel computed a wrong result")
