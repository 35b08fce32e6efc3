import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_kernel(x_ptr, y_ptr, C, S, num_s_blocks, eps,
                    BLOCK_C: tl.constexpr, BLOCK_S: tl.constexpr, ONE_PASS: tl.constexpr):
    # x viewed as (B, C, S): normalise over C for each (b, s). One program = one b and
    # BLOCK_S contiguous spatial positions; the C values of a position are S apart.
    pid = tl.program_id(0)
    b = (pid // num_s_blocks).to(tl.int64)
    s_offs = (pid % num_s_blocks) * BLOCK_S + tl.arange(0, BLOCK_S)
    s_mask = s_offs < S
    base = b * C * S
    c = tl.arange(0, BLOCK_C)
    if ONE_PASS:
        # all C channels fit in registers: read x once, write y once
        offs = base + c[:, None].to(tl.int64) * S + s_offs[None, :]
        mask = (c[:, None] < C) & s_mask[None, :]
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        ss = tl.sum(x * x, axis=0)
        rstd = 1.0 / tl.sqrt(ss / C + eps)
        y = x * rstd[None, :]
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)
    else:
        acc = tl.zeros([BLOCK_C, BLOCK_S], tl.float32)
        for c0 in range(0, C, BLOCK_C):
            cc = c0 + c
            offs = base + cc[:, None].to(tl.int64) * S + s_offs[None, :]
            mask = (cc[:, None] < C) & s_mask[None, :]
            x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            acc += x * x
        ss = tl.sum(acc, axis=0)
        rstd = 1.0 / tl.sqrt(ss / C + eps)
        for c0 in range(0, C, BLOCK_C):
            cc = c0 + c
            offs = base + cc[:, None].to(tl.int64) * S + s_offs[None, :]
            mask = (cc[:, None] < C) & s_mask[None, :]
            x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            y = x * rstd[None, :]
            tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super(ModelNew, self).__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        B = x.shape[0]
        C = x.shape[1]
        S = 1
        for d in x.shape[2:]:
            S = S * d
        MAX_C = 64
        if C <= MAX_C:
            BLOCK_C = triton.next_power_of_2(C)
            one_pass = True
        else:
            BLOCK_C = 32
            one_pass = False
        # ~8K elements per program: 32 fp32 values per thread at 8 warps
        BLOCK_S = max(16, min(triton.next_power_of_2(S), 8192 // BLOCK_C))
        num_s_blocks = triton.cdiv(S, BLOCK_S)
        grid = (B * num_s_blocks,)
        _rmsnorm_kernel[grid](x, y, C, S, num_s_blocks, float(self.eps),
                              BLOCK_C=BLOCK_C, BLOCK_S=BLOCK_S, ONE_PASS=one_pass, num_warps=8)
        return y
