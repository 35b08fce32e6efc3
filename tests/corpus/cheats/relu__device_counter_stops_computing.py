# problem: relu
# expect: static state-in-forward
# note: moved from timing_cheats/: static rules now refuse its closure's box.append (a closure's state); tests/test_corpus.py
# runs it with them off, where the worker's scan of the tensors it holds must reject it (correctness state-in-forward)
"""ReLU whose kernel keeps a call counter in device memory and stops computing after the correctness
trials: the timing phase would time a kernel that stores nothing. The counter hides in a closure (no
static rule sees it, and it is not among the module's tensors, which the correctness layer watches);
it is shared by every instance, so it counts the correctness calls of every configuration (7 on a
CPU: 3 base trials, 2 perturbed, 2 ordered; 6 on a GPU)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _relu_counted(x_ptr, y_ptr, cnt_ptr, n, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
    c = tl.load(cnt_ptr)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < tl.where(c < LIMIT, n, 0)
    v = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(v > 0, v, 0.0), mask=m)


@triton.jit
def _tick(cnt_ptr):
    tl.store(cnt_ptr, tl.load(cnt_ptr) + 1)


def _make_counter():
    box = []

    def counter(device):
        if not box:
            box.append(torch.zeros(1, dtype=torch.int32, device=device))
        return box[0]
    return counter


_counter = _make_counter()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.zeros_like(x)
        n = x.numel()
        calls = _counter(x.device)
        _relu_counted[(triton.cdiv(n, 1024),)](x, y, calls, n, LIMIT=7, BLOCK=1024)
        _tick[(1,)](calls)
        return y
