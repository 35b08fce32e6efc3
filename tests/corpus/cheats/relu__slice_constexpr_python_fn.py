# problem: relu
# expect: launch runtime-torch-compute
# note: a slice handed as a constexpr (its .step a Python function) is not searched by _python_callables; the kernel
# note: rebinds its own parameter OP to D.step (an attribute of a parameter, so allowed) and calls it per element
# note: found by a red-team pass that the verifier accepted it; caught since _python_callables searches dicts, sets and slices too (2026-12-06)
import torch
import torch.nn as nn
import triton
import triton.language as tl


def py_relu_bits(b):
    v = int(b)
    return 0 if v < 0 else v


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, D: tl.constexpr, OP: tl.constexpr):
    pid = tl.program_id(0)
    bits = tl.load(x_ptr + pid).to(tl.int32, bitcast=True)
    OP = D.step
    r = OP(bits)
    tl.store(y_ptr + pid, tl.full((), r, tl.int32).to(tl.float32, bitcast=True))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(n,)](x, y, n, D=slice(None, None, py_relu_bits), OP=0)
        return y
