# problem: matmul
# expect: static conversion-dunder
# note: torch.tensor([obj], dtype=...) runs obj.__float__ with the Python dispatch key excluded; broadcast-multiply and
# note: Tensor.sum_to_size (not in TENSOR_COMPUTE) do the matmul there, unseen by the op log
# note: found by a red-team pass that the verifier accepted it; refused statically (a class defining __float__) and, with the static rules off, by the worker's tensor-constructor check (data that is not plain numbers)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


class Job(dict):
    def __float__(self):
        a = self["a"]
        b = self["b"]
        m, k = a.shape
        n = b.shape[1]
        prod = a.unsqueeze(2) * b.unsqueeze(0)
        self["c"].copy_(prod.sum_to_size(m, 1, n).view(m, n))
        return 0.0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        c = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device)
        torch.tensor([Job(a=a, b=b, c=c)], dtype=torch.float32)
        n = c.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](c, c, n, BLOCK=1024)
        return c
