import torch
import torch.nn as nn


class Model(nn.Module):
    """Sum along one dimension, keeping it (size 1)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


batch = 8
d1 = 384
d2 = 512


def get_inputs():
    return [torch.randn(batch, d1, d2)]


def get_init_inputs():
    return [2]
