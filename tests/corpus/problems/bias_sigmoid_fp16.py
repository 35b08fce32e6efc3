import torch
import torch.nn as nn


class Model(nn.Module):
    """fp16 activations plus a per-channel bias (a parameter broadcast over H, W), then sigmoid, kept in fp16."""

    def __init__(self, channels):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(channels, 1, 1, dtype=torch.float16))

    def forward(self, x):
        return torch.sigmoid(x + self.bias)


batch_size = 2
channels = 8
height = 12
width = 16


def get_inputs():
    return [torch.randn(batch_size, channels, height, width, dtype=torch.float16)]


def get_init_inputs():
    return [channels]
