# problem: argmax_rows
# expect: correctness output-mismatch
# note: blocks combined with >=: on ties returns a later index than torch.argmax's first occurrence
# note: found by a red-team pass that the verifier accepted it; caught by the value variant 'zeros' (all-zero inputs: every element ties)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def argmax_rows_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best_v = tl.full((BLOCK,), float("-inf"), tl.float32)
    best_i = tl.zeros((BLOCK,), tl.int32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=float("-inf")).to(tl.float32)
        take = (v >= best_v) & (offs < n_cols)
        best_v = tl.where(take, v, best_v)
        best_i = tl.where(take, offs, best_i)
    m = tl.max(best_v, axis=0)
    idx = tl.max(tl.where(best_v == m, best_i, -1), axis=0)
    tl.store(out_ptr + row, idx.to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty((n_rows,), dtype=torch.int64, device=x.device)
        argmax_rows_kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK=256)
        return out
