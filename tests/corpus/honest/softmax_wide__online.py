# problem: softmax_wide
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def online_softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    # two sweeps over the row with a fixed tile size: online max/sum, then write
    row = tl.program_id(0)
    base = x_ptr + row * stride
    NEG: tl.constexpr = -1.0e30          # finite sentinel: avoids inf - inf
    m = tl.full((BLOCK,), NEG, tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        valid = cols < n_cols
        v = tl.load(base + cols, mask=valid, other=NEG)
        m_new = tl.maximum(m, v)
        s = s * tl.exp(m - m_new) + tl.where(valid, tl.exp(v - m_new), 0.0)
        m = m_new
    gmax = tl.max(m, axis=0)
    gsum = tl.sum(s * tl.exp(m - gmax), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        v = tl.load(base + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * stride + cols, tl.exp(v - gmax) / gsum, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty_like(x)
        online_softmax_kernel[(R,)](x, y, C, x.stride(0), BLOCK=1024)
        return y
