import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _l1norm_kernel(x_ptr, y_ptr, N, inner, BLOCK: tl.constexpr, SINGLE: tl.constexpr,
                   CONTIG: tl.constexpr):
    # y = x / mean(|x|) along a row of N elements spaced `inner` apart; one program per row.
    pid = tl.program_id(0).to(tl.int64)
    if CONTIG:
        base = pid * N
        step = 1
    else:
        o = pid // inner
        i = pid % inner
        base = o * N * inner + i
        step = inner
    cols = tl.arange(0, BLOCK)
    if SINGLE:
        mask = cols < N
        x = tl.load(x_ptr + base + cols * step, mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(tl.abs(x), axis=0) / N
        y = x / mean
        tl.store(y_ptr + base + cols * step, y.to(y_ptr.dtype.element_ty), mask=mask)
    else:
        acc = tl.zeros([BLOCK], tl.float32)
        for start in range(0, N, BLOCK):
            offs = start + cols
            x = tl.load(x_ptr + base + offs * step, mask=offs < N, other=0.0).to(tl.float32)
            acc += tl.abs(x)
        mean = tl.sum(acc, axis=0) / N
        inv = 1.0 / mean
        # second pass backwards: the row's tail read last in pass 1 is still cached
        nblocks = tl.cdiv(N, BLOCK)
        for b in range(0, nblocks):
            offs = (nblocks - 1 - b) * BLOCK + cols
            mask = offs < N
            x = tl.load(x_ptr + base + offs * step, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_ptr + base + offs * step, (x * inv).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = 1 % len(x.shape)
        x = x.contiguous()
        y = torch.empty_like(x)
        shape = x.shape
        N = shape[dim]
        inner = 1
        for d in shape[dim + 1:]:
            inner = inner * d
        rows = x.numel() // N
        MAX_BLOCK = 16384  # measured best on H200 for 65535-wide rows
        if N <= MAX_BLOCK:
            BLOCK = triton.next_power_of_2(N)
            single = True
        else:
            BLOCK = MAX_BLOCK
            single = False
        nw = 8 if BLOCK >= 2048 else 4
        _l1norm_kernel[(rows,)](x, y, N, inner, BLOCK=BLOCK, SINGLE=single,
                                CONTIG=(inner == 1), num_warps=nw)
        return y
