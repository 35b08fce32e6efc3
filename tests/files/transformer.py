"""A small transformer block, written the way people write them."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

HIDDEN = 64
N_HEADS = 4
SEQ = 16
BATCH = 2


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class MLP(nn.Module):
    def __init__(self, dim, hidden_mult=4):
        super().__init__()
        self.up = nn.Linear(dim, dim * hidden_mult)
        self.down = nn.Linear(dim * hidden_mult, dim)

    def forward(self, x):
        return self.down(gelu_tanh(self.up(x)))


class Attention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.n_heads, c // self.n_heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class Block(nn.Module):
    def __init__(self, dim=HIDDEN, n_heads=N_HEADS):
        super().__init__()
        self.n1, self.attn = RMSNorm(dim), Attention(dim, n_heads)
        self.n2, self.mlp = RMSNorm(dim), MLP(dim)

    def forward(self, x):
        x = x + self.attn(self.n1(x))
        return x + self.mlp(self.n2(x))


def unrelated_broken_helper(:
    pass


def get_inputs_RMSNorm():
    return [torch.randn(BATCH, SEQ, HIDDEN)]


def get_init_inputs_RMSNorm():
    return [HIDDEN]


def get_inputs():
    return [torch.randn(BATCH, SEQ, HIDDEN)]


def get_init_inputs():
    return []


if __name__ == "__main__":
    print(Block()(torch.randn(BATCH, SEQ, HIDDEN)).shape)
