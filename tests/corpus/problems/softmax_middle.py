import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over dim 1 of a 3-D tensor (B, C, L)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


batch_size = 3
channels = 20
length = 28


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return []
