# problem: relu
# expect: static undefined-name
# note: Triton's interpreter copies its own globals (np, inspect, time, ...) into the kernel's module at the first
# launch; forward then reads numpy over the tensors' memory (__array_interface__ of a class made with type()) and
# computes ReLU in numpy: no torch op, no logged read. Verified before on CPU. Now the interpreter runs kernels in a
# copy of the globals (a NameError at runtime) and the static rule refuses names never imported or defined
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def touch_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def _view(t):
    # a numpy array over the tensor's memory: numpy reads the address from __array_interface__
    spec = {"data": (t.data_ptr(), False), "shape": (t.numel(),), "typestr": "<f4", "version": 3}
    return np.asarray(type("View", (), {"__array_interface__": spec})())


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        touch_kernel[(1,)](x, out, 1, BLOCK=16)  # the first launch puts the interpreter's globals (np) in ours
        src, dst = _view(x), _view(out)
        np.copyto(dst, 0.0)
        np.copyto(dst, src, where=src > 0)
        return out
