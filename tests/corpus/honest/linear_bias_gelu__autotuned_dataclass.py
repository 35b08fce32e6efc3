# problem: linear_bias_gelu
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice

SQRT1_2: tl.constexpr = 0.7071067811865476


@dataclass(frozen=True)
class TileConfig:
    block_m: int = 16
    block_n: int = 16
    block_k: int = 16


@triton.jit
def _gelu(x):
    return 0.5 * x * (1.0 + libdevice.erf(x * SQRT1_2))


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_K": 16}, num_warps=4),
        triton.Config({"BLOCK_K": 32}, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def linear_bias_gelu_kernel(x_ptr, w_ptr, b_ptr, b2_ptr, out_ptr, M, N, K,
                            stride_xm, stride_xk, stride_wn, stride_wk, stride_om, stride_on,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * stride_xm + kk[None, :] * stride_xk,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        # W is (N, K): read it as its transpose (K, N) through the strides
        w = tl.load(w_ptr + kk[:, None] * stride_wk + rn[None, :] * stride_wn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    nmask = rn < N
    bias = tl.load(b_ptr + rn, mask=nmask, other=0.0) + tl.load(b2_ptr + rn, mask=nmask, other=0.0)
    y = _gelu(acc + bias[None, :])
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :] * stride_on, y,
             mask=(rm[:, None] < M) & nmask[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, config: TileConfig = TileConfig()) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.extra_bias = nn.Parameter(torch.zeros(out_features))
        nn.init.normal_(self.extra_bias, std=0.1)
        self.config = config

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        M, K = x.shape
        N = self.linear.out_features
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        cfg = self.config
        grid = (triton.cdiv(M, cfg.block_m), triton.cdiv(N, cfg.block_n))
        w = self.linear.weight
        linear_bias_gelu_kernel[grid](x, w, self.linear.bias, self.extra_bias, out, M, N, K,
                                      x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                                      out.stride(0), out.stride(1), BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n)
        return out
