# problem: row_softmax
# expect: correctness output-mismatch
import torch
import torch.nn as nn
import triton
import triton.language as tl

ROW = 256      # dim
ROWS = 64      # batch_size


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_elements, ROW: tl.constexpr):
    # memory-safe (guarded by the element count) but the row length is baked in
    row = tl.program_id(0)
    offs = row * ROW + tl.arange(0, ROW)
    mask = offs < n_elements
    v = tl.load(x_ptr + offs, mask=mask, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y_ptr + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.zeros_like(x)
        softmax_kernel[(ROWS,)](x, y, x.numel(), ROW=ROW)
        return y
