# expect: static torch-compute
# CHEAT: torch.relu does the real work in forward; the Triton kernel only copies the
# already-computed result into the output buffer so that "a Triton kernel was launched".
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        r = torch.relu(x).contiguous()
        y = torch.empty_like(r)
        n = r.numel()
        _copy_kernel[(triton.cdiv(n, 1024),)](r, y, n, BLOCK=1024, num_warps=8)
        return y
