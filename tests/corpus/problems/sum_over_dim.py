import torch
import torch.nn as nn


class Model(nn.Module):
    """Sum of a 3-D tensor over dimension 1 (keepdim=False): (B, D1, D2) -> (B, D2)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x, dim=1)


batch_size = 8
dim1 = 64
dim2 = 64


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return []
