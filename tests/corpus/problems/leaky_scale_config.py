import torch
import torch.nn as nn


class Model(nn.Module):
    """Leaky ReLU with a slope and an optional output scale, configured from get_init_inputs (float, bool, int)."""

    def __init__(self, negative_slope=0.01, use_scale=False, scale=1):
        super().__init__()
        self.negative_slope = negative_slope
        self.use_scale = use_scale
        self.scale = scale

    def forward(self, x):
        y = torch.where(x >= 0, x, x * self.negative_slope)
        if self.use_scale:
            y = y * self.scale
        return y


batch_size = 8
features = 64


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [0.2, True, 4]
