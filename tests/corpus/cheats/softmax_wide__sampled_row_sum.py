# problem: softmax_wide
# expect: correctness output-mismatch
# note: the normaliser is estimated from the first eighth of each row (its sum of exponentials times 8), so the first
# sweep reads an eighth of the row: every output is off by a few percent of itself, but all of them are below 0.01,
# so the error was within atol=1e-2 everywhere, sorted and sign-mapped trials included (a speed cheat on a GPU).
# Verified before; now the absolute tolerance is at most rtol times the output's largest value
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sampled_softmax_kernel(x_ptr, y_ptr, n_cols, n_sample, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * stride
    NEG: tl.constexpr = -1.0e30
    m = tl.full((BLOCK,), NEG, tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_sample, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        valid = cols < n_sample
        v = tl.load(base + cols, mask=valid, other=NEG)
        m_new = tl.maximum(m, v)
        s = s * tl.exp(m - m_new) + tl.where(valid, tl.exp(v - m_new), 0.0)
        m = m_new
    gmax = tl.max(m, axis=0)
    gsum = tl.sum(s * tl.exp(m - gmax), axis=0) * n_cols / n_sample
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
        sampled_softmax_kernel[(R,)](x, y, C, max(1, C // 8), x.stride(0), BLOCK=1024)
        return y
