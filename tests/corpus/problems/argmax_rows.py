import torch
import torch.nn as nn


class Model(nn.Module):
    """Index of the largest element of each row: (R, C) -> (R,) int64. Few long rows, so the maximum of
    a random row sits in its last column only by chance (a kernel that skips that column must still fail)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.argmax(x, dim=-1)


rows = 4
cols = 4096


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
