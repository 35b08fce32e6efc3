import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B where A arrives as a transposed (non-contiguous) view."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


M = 24
K = 40
N = 32


def get_inputs():
    A = torch.randn(K, M).t()
    B = torch.randn(K, N)
    return [A, B]


def get_init_inputs():
    return []
