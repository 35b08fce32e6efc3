# problem: concat_list_input
# expect: correctness input-mutated
# note: forward takes a list of tensors and scales them in place (the caller's tensors as scratch) before copying them out: only top-level tensor arguments were cloned and checked for changes, so this verified (red-teaming 2026-12-07); tensors inside list and tuple arguments are now cloned and checked too
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_in_place_kernel(ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(ptr + offs, tl.load(ptr + offs, mask=m) * scale, mask=m)


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n_rows, n_cols, src_stride, dst_stride, col_offset,
                BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    m = (r[:, None] < n_rows) & (c[None, :] < n_cols)
    v = tl.load(src_ptr + r[:, None] * src_stride + c[None, :], mask=m)
    tl.store(dst_ptr + r[:, None] * dst_stride + col_offset + c[None, :], v, mask=m)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = float(scale)

    def forward(self, tensors):
        # the caller's tensors are used as scratch: scaled in place (they come back changed), then copied out
        n_rows = tensors[0].shape[0]
        total = sum(p.shape[1] for p in tensors)
        out = torch.empty((n_rows, total), device=tensors[0].device, dtype=tensors[0].dtype)
        offset = 0
        for p in tensors:
            w = p.shape[1]
            scale_in_place_kernel[(triton.cdiv(p.numel(), 256),)](p, p.numel(), self.scale, BLOCK=256)
            copy_kernel[(triton.cdiv(n_rows, 8), triton.cdiv(w, 16))](p, out, n_rows, w, p.stride(0), out.stride(0),
                                                                      offset, BLOCK_R=8, BLOCK_C=16)
            offset += w
        return out
