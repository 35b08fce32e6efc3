# problem: index_add_rows
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def index_add_kernel(src_ptr, idx_ptr, out_ptr, n_items, D, BLOCK_I: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_i = tl.program_id(0)
    items = pid_i * BLOCK_I + tl.arange(0, BLOCK_I)
    cols = tl.arange(0, BLOCK_D)
    imask = items < n_items
    cmask = cols < D
    dst = tl.load(idx_ptr + items, mask=imask, other=0)
    m = imask[:, None] & cmask[None, :]
    v = tl.load(src_ptr + items[:, None] * D + cols[None, :], mask=m, other=0.0)
    tl.atomic_add(out_ptr + dst[:, None] * D + cols[None, :], v, mask=m)


class ModelNew(nn.Module):
    def __init__(self, num_buckets):
        super().__init__()
        self.num_buckets = num_buckets

    def forward(self, src, index):
        src = src.contiguous()
        n_items, D = src.shape
        out = torch.zeros((self.num_buckets, D), dtype=src.dtype, device=src.device)
        BLOCK_I = 16
        index_add_kernel[(triton.cdiv(n_items, BLOCK_I),)](src, index, out, n_items, D, BLOCK_I=BLOCK_I,
                                                          BLOCK_D=triton.next_power_of_2(D))
        return out
