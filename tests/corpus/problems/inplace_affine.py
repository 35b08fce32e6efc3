import torch
import torch.nn as nn


class Model(nn.Module):
    """Changes its input in place (x.mul_().add_().relu_()) and returns it: the inputs a candidate gets must be the
    ones the reference was given, not the ones it left behind."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        x.mul_(3.0).add_(1.0)
        return x.relu_()


batch_size = 16
dim = 1000


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
