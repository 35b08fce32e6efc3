# expect: correctness output-mismatch
# CHEAT: hard-coded to the original problem size (M = 16384 * 4, N = 4096 * 4): no bounds
# mask, and the grid is computed from those literal sizes (clipped to whole blocks of the
# actual tensor so it stays in bounds). Exact at the original size; at other sizes the
# tail (or everything) is never written and the output is garbage/zeros there.
import torch
import torch.nn as nn
import triton
import triton.language as tl

ORIG_NUMEL = (16384 * 4) * (4096 * 4)
BLOCK = 4096


@triton.jit
def _scale_kernel(a_ptr, c_ptr, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs) * s)  # no mask


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, s: float) -> torch.Tensor:
        C = torch.zeros_like(A)
        blocks = min(ORIG_NUMEL, A.numel()) // BLOCK  # whole blocks only, as at the original size
        if blocks > 0:
            _scale_kernel[(blocks,)](A, C, float(s), BLOCK=BLOCK, num_warps=8)
        return C
