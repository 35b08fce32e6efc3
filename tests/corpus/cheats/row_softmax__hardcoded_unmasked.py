# problem: row_softmax
# expect: sandbox crash | sandbox forward-error | correctness output-mismatch
# note: right at the original sizes; at other sizes the unmasked loads/stores go out of bounds.
# The Triton interpreter does no bounds checking: the process typically dies (SIGABRT from glibc
# heap checks, or SIGSEGV); in principle it could also survive with a wrong result.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr):
    row = tl.program_id(0)
    cols = tl.arange(0, 256)                 # dim = 256, no mask needed
    v = tl.load(x_ptr + row * 256 + cols)
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y_ptr + row * 256 + cols, e / tl.sum(e, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        softmax_kernel[(64,)](x, y)           # batch_size = 64
        return y
