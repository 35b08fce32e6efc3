import torch
import torch.nn as nn


class Model(nn.Module):
    """nn.Sequential(Linear, ReLU, Linear), widths from get_init_inputs (one derived from another constant)."""

    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_out))

    def forward(self, x):
        return self.net(x)


batch_size = 12
in_features = 64
hidden = in_features * 2
out_features = 10


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, hidden, out_features]
