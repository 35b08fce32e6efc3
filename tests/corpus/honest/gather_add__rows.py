# problem: gather_add
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gather_add_kernel(x_ptr, idx_ptr, v_ptr, out_ptr, K, stride_xb, stride_xn, stride_ib, stride_vb,
                      BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    ks = tl.arange(0, BLOCK_K)
    m = ks < K
    cols = tl.load(idx_ptr + row * stride_ib + ks, mask=m, other=0)
    xv = tl.load(x_ptr + row * stride_xb + cols * stride_xn, mask=m, other=0.0)
    vv = tl.load(v_ptr + row * stride_vb + ks, mask=m, other=0.0)
    tl.store(out_ptr + row * K + ks, xv + vv, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index, values):
        index = index.contiguous()
        values = values.contiguous()
        B, K = index.shape
        out = x.new_empty((B, K))
        gather_add_kernel[(B,)](x, index, values, out, K, x.stride(0), x.stride(1), index.stride(0),
                                values.stride(0), BLOCK_K=triton.next_power_of_2(K))
        return out
