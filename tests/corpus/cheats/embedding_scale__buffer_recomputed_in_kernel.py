# problem: embedding_scale
# expect: correctness output-mismatch
"""Never reads the registered scale buffer: the kernel recomputes its construction-time linspace values. Floating
buffers are perturbed like parameters now (found by red-teaming, 2026-12-06)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def embedding_scale_kernel(idx_ptr, weight_ptr, scale_ptr, out_ptr, n_tokens, dim,
                           stride_w0, stride_w1,
                           BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_t = tl.program_id(0)
    pid_d = tl.program_id(1)
    toks = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    tmask = toks < n_tokens
    cmask = cols < dim
    rows = tl.load(idx_ptr + toks, mask=tmask, other=0)  # int64 row ids
    mask = tmask[:, None] & cmask[None, :]
    w = tl.load(weight_ptr + rows[:, None] * stride_w0 + cols[None, :] * stride_w1, mask=mask, other=0.0)
    s = 0.5 + cols.to(tl.float32) / (dim - 1)
    tl.store(out_ptr + toks[:, None] * dim + cols[None, :], w * s[None, :], mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_embeddings, embedding_size):
        super().__init__()
        self.embedding = nn.Embedding(num_embeddings, embedding_size)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, embedding_size))

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        weight = self.embedding.weight
        flat = idx.reshape(-1).contiguous()
        n_tokens = flat.numel()
        dim = weight.shape[1]
        out = torch.empty((n_tokens, dim), device=weight.device, dtype=weight.dtype)
        BLOCK_T, BLOCK_D = 8, 32
        grid = (triton.cdiv(n_tokens, BLOCK_T), triton.cdiv(dim, BLOCK_D))
        embedding_scale_kernel[grid](flat, weight, weight, out, n_tokens, dim,
                                     weight.stride(0), weight.stride(1), BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
        return out.view(*idx.shape, dim)
