import torch
import torch.nn as nn


class Model(nn.Module):
    """LayerNorm over the last dimension, with elementwise affine weight and bias."""

    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)

    def forward(self, x):
        return self.ln(x)


batch_size = 32
dim = 256


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim]
