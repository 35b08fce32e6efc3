import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """GELU with the tanh approximation."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.gelu(x, approximate="tanh")


batch_size = 16
dim = 2048


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
