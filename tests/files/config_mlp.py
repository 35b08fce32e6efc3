from dataclasses import dataclass

import torch
from torch import nn

DIM = 48
EXPANSION = 2
HIDDEN = DIM * EXPANSION


@dataclass
class MLPConfig:
    dim: int = DIM
    hidden: int = HIDDEN
    dropout: float = 0.0


class GatedMLP(nn.Module):
    """SwiGLU feed-forward, configured by a dataclass; the activation is a helper defined below."""

    def __init__(self, cfg: MLPConfig):
        super().__init__()
        self.gate = nn.Linear(cfg.dim, cfg.hidden, bias=False)
        self.up = nn.Linear(cfg.dim, cfg.hidden, bias=False)
        self.down = nn.Linear(cfg.hidden, cfg.dim, bias=False)

    def forward(self, x):
        return self.down(swish(self.gate(x)) * self.up(x))


def swish(x):
    return x * torch.sigmoid(x)


class Unused(nn.Module):
    def forward(self, x):
        return undefined_thing(x)


def get_inputs():
    return [torch.randn(4, DIM)]


def get_init_inputs():
    return [MLPConfig()]
