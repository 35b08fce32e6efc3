# problem: row_softmax
# expect: static no-triton-kernel
import torch
import torch.nn as nn
import triton  # imported but never used


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        e = torch.exp(x - x.max(dim=1, keepdim=True).values)
        return e / e.sum(dim=1, keepdim=True)
