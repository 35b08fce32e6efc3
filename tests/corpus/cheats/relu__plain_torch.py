# problem: relu
# expect: static no-triton-kernel
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        # "optimised": clamp is faster than relu
        return torch.clamp(x, min=0.0)
