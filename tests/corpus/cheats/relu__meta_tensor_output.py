# problem: relu
# expect: correctness output-mismatch
# note: returns a tensor on the meta device (a shape, no data). Not verified before, but the supervisor's comparison
# raised on it and the exception ended verify_batch: every other candidate of the batch (an honest one too) got no
# verdict, and the trainer scored the whole group as a verifier fault. Now an output that is not a dense tensor on the
# reference's device is a mismatch, and an output compare cannot read fails only its own candidate
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(1,)](x, out, 16, BLOCK=16)
        return torch.empty_like(x, device="meta")
