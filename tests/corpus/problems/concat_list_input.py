import torch
import torch.nn as nn


class Model(nn.Module):
    """Concatenate a list of tensors along dim 1 and scale: forward takes one argument, a list."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, tensors):
        return torch.cat(tensors, dim=1) * self.scale


rows = 10
width_a = 12
width_b = 20


def get_inputs():
    return [[torch.randn(rows, width_a), torch.randn(rows, width_b)]]


def get_init_inputs():
    return [1.5]
