# problem: relu
# expect: static forbidden-call
# note: typing.get_type_hints evaluates string annotations (eval in the module's globals): '__import__' hidden in a
# note: string reaches (at import) ctypes/numpy; numpy computes ReLU over x.data_ptr() memory (no ATen op, no logged read)
# note: found by a red-team pass that the verifier accepted it; refused statically (typing.get_type_hints) and, with the static rules off, by the worker's import guard (the candidate's imports, eval'd code included, limited to the allowed modules)
import typing
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


def _libs(a: "__import__('numpy')", b: "__import__('ctypes')"):
    pass


_H = typing.get_type_hints(_libs)  # evaluated at import: numpy and ctypes


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.zeros_like(x)
        n = x.numel()
        a, b = _H["a"], _H["b"]
        src = a.ctypeslib.as_array((b.c_float * n).from_address(x.data_ptr()))
        dst = a.ctypeslib.as_array((b.c_float * n).from_address(y.data_ptr()))
        a.copyto(dst, src, where=src > 0)
        copy_kernel[(triton.cdiv(n, 1024),)](y, y, n, BLOCK=1024)
        return y
