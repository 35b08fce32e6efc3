import torch
import torch.nn as nn


class Model(nn.Module):
    """Scatter-add rows of src into num_buckets output rows chosen by an int64 index."""

    def __init__(self, num_buckets):
        super().__init__()
        self.num_buckets = num_buckets

    def forward(self, src, index):
        out = torch.zeros(self.num_buckets, src.shape[1], dtype=src.dtype, device=src.device)
        return out.index_add_(0, index, src)


n_items = 64
features = 24
num_buckets = 10


def get_inputs():
    return [torch.randn(n_items, features), torch.randint(0, num_buckets, (n_items,))]


def get_init_inputs():
    return [num_buckets]
