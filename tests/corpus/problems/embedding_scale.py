import torch
import torch.nn as nn


class Model(nn.Module):
    """Embedding lookup scaled per feature by a registered buffer: (B, L) int64 -> (B, L, D)."""

    def __init__(self, num_embeddings, embedding_size):
        super().__init__()
        self.embedding = nn.Embedding(num_embeddings, embedding_size)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, embedding_size))

    def forward(self, idx):
        return self.embedding(idx) * self.scale


batch_size = 4
seq_len = 12
num_embeddings = 50
embedding_size = 32


def get_inputs():
    return [torch.randint(0, num_embeddings, (batch_size, seq_len))]


def get_init_inputs():
    return [num_embeddings, embedding_size]
