import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # where(x < 0) keeps NaN like torch.relu
    y = tl.where(x < 0, 0.0, x)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024  # 4 fp32 (one 16-byte vector) per thread; measured best on H200
        grid = (triton.cdiv(n, BLOCK),)
        _relu_kernel[grid](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
