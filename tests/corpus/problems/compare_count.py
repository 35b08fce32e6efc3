import torch
import torch.nn as nn


class Model(nn.Module):
    """Elementwise x > y as a bool mask, and the number of True per row as int64."""

    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        mask = x > y
        return mask, mask.sum(dim=1)


rows = 16
cols = 48


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(rows, cols)]


def get_init_inputs():
    return []
