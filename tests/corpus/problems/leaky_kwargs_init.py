import torch
import torch.nn as nn


class Model(nn.Module):
    """Scaled leaky ReLU configured by keyword arguments."""

    def __init__(self, negative_slope=0.01, scale=1.0):
        super().__init__()
        self.negative_slope = negative_slope
        self.scale = scale

    def forward(self, x):
        return torch.nn.functional.leaky_relu(x, self.negative_slope) * self.scale


rows = 24
cols = 40


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return {"scale": 2.0, "negative_slope": 0.2}
