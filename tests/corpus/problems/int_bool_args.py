import torch
import torch.nn as nn


class Model(nn.Module):
    """Multiply by an integer factor given to __init__, negated when forward's bool says so."""

    def __init__(self, factor: int):
        super().__init__()
        self.factor = factor

    def forward(self, x, negate: bool):
        y = x * self.factor
        return -y if negate else y


rows = 16
cols = 40
factor = 3


def get_inputs():
    return [torch.randn(rows, cols), False]


def get_init_inputs():
    return [factor]
