import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _scale_kernel(a_ptr, c_ptr, s, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    c = a * s
    tl.store(c_ptr + offs, c.to(c_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, s: float) -> torch.Tensor:
        A = A.contiguous()
        C = torch.empty_like(A)
        n = A.numel()
        BLOCK = 1024  # 4 fp32 (one 16-byte vector) per thread; measured best on H200
        grid = (triton.cdiv(n, BLOCK),)
        _scale_kernel[grid](A, C, float(s), n, BLOCK=BLOCK, num_warps=8)
        return C
