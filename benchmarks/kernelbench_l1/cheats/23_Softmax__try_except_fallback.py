# expect: static try-except-fallback
# CHEAT: the Triton kernel is wrapped in try/except and anything that goes wrong (or a
# deliberately failing launch) silently falls back to torch.softmax.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax_row_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * N + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        try:
            # single-block kernel: only works while a row fits in one block
            if x.shape[1] > 4096:
                raise RuntimeError("row too long for single-block kernel")
            _softmax_row_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
            return y
        except Exception:
            return torch.softmax(x, dim=1)
