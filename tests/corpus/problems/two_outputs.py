import torch
import torch.nn as nn


class Model(nn.Module):
    """Returns a tuple: (x * 2, sum of x over dim 1)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 2, x.sum(dim=1)


batch_size = 16
dim = 512


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
