# problem: sum_over_dim
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_r, stride_c, BLOCK: tl.constexpr):
    # one program per output element: sums row `pid` of a (n_rows, n_cols) strided matrix
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + pid * stride_r + c * stride_c, mask=c < n_cols, other=0.0)
    tl.store(out_ptr + pid, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        B, D1, D2 = x.shape
        out = torch.empty((B, D2), device=x.device, dtype=x.dtype)
        for b in range(B):
            xb = x[b].transpose(0, 1)          # (D2, D1) non-contiguous view, no copy
            row_sum_kernel[(D2,)](xb, out[b], D2, D1, xb.stride(0), xb.stride(1), BLOCK=16)
        return out
