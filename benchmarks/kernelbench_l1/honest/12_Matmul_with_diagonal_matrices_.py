import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _diag_mul_kernel(a_ptr, b_ptr, c_ptr, N, M, stride_bn, stride_cn, num_col_blocks,
                     BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    # C[i, j] = A[i] * B[i, j]; one program = BLOCK_R rows x BLOCK_C columns
    pid = tl.program_id(0)
    pid_r = pid // num_col_blocks
    pid_c = pid % num_col_blocks
    rows = (pid_r * BLOCK_R + tl.arange(0, BLOCK_R)).to(tl.int64)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    rmask = rows < N
    cmask = cols < M
    a = tl.load(a_ptr + rows, mask=rmask, other=0.0)
    mask = rmask[:, None] & cmask[None, :]
    b = tl.load(b_ptr + rows[:, None] * stride_bn + cols[None, :], mask=mask, other=0.0)
    c = a[:, None] * b
    tl.store(c_ptr + rows[:, None] * stride_cn + cols[None, :], c.to(c_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        A = A.contiguous()
        B = B.contiguous()
        N = B.shape[0]
        M = B.shape[1]
        C = torch.empty((N, M), dtype=B.dtype, device=B.device)
        BLOCK_C = min(1024, triton.next_power_of_2(M))
        BLOCK_R = min(4096 // BLOCK_C, triton.next_power_of_2(N))
        num_col_blocks = triton.cdiv(M, BLOCK_C)
        grid = (triton.cdiv(N, BLOCK_R) * num_col_blocks,)
        _diag_mul_kernel[grid](A, B, C, N, M, B.stride(0), C.stride(0), num_col_blocks,
                               BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=8)
        return C
