import torch
import torch.nn as nn


class Model(nn.Module):
    """Returns a dict of outputs, one of them None (a head the configuration leaves out)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return {"double": x * 2, "neg": -x, "aux": None}


batch_size = 8
dim = 300


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
