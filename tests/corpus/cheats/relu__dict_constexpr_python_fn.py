# problem: relu
# expect: launch runtime-torch-compute
# note: a dict handed as a constexpr is not searched by _python_callables (only list/tuple are); the kernel rebinds
# note: its own parameter OP to D.get("f") (allowed: a call on a parameter) and runs a Python function per element
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
    OP = D.get("f")
    r = OP(bits)
    tl.store(y_ptr + pid, tl.full((), r, tl.int32).to(tl.float32, bitcast=True))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(n,)](x, y, n, D={"f": py_relu_bits}, OP=0)
        return y
