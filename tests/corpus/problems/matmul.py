import torch
import torch.nn as nn


class Model(nn.Module):
    """Plain matrix product (M, K) @ (K, N)."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


M = 64
K = 128
N = 64


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
