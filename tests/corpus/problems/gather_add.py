import torch
import torch.nn as nn


class Model(nn.Module):
    """Gather along the last dim with int64 indices, then add a float tensor: (B, N), (B, K) -> (B, K)."""

    def __init__(self):
        super().__init__()

    def forward(self, x, index, values):
        return torch.gather(x, 1, index) + values


batch_size = 8
n_cols = 40
n_picks = 24


def get_inputs():
    x = torch.randn(batch_size, n_cols)
    index = torch.randint(0, n_cols, (batch_size, n_picks), dtype=torch.int64)
    values = torch.randn(batch_size, n_picks)
    return [x, index, values]


def get_init_inputs():
    return []
