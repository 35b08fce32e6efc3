# problem: relu
# expect: static state-in-forward
# note: moved from timing_cheats/: static rules now refuse its closure's box.append (a closure's state); tests/test_corpus.py
# runs it with them off, where the worker's scan of the tensors it holds must reject it (correctness state-in-forward)
"""ReLU that computes honestly through its correctness trials and the first call of the timing phase
(8 calls in all: see the counter cheat beside it), then replays the last result from a buffer it
keeps, whatever the input: when the timing loop repeats its inputs the replay is right. Counter and
buffer hide in a closure, in device memory. On a matmul, replaying a copy instead of computing would
be a large fake speedup."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _relu_or_replay(x_ptr, y_ptr, stash_ptr, cnt_ptr, n, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
    c = tl.load(cnt_ptr)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m)
    old = tl.load(stash_ptr + offs, mask=m)
    r = tl.where(c < LIMIT, tl.where(v > 0, v, 0.0), old)
    tl.store(y_ptr + offs, r, mask=m)
    tl.store(stash_ptr + offs, r, mask=m)


@triton.jit
def _tick(cnt_ptr):
    tl.store(cnt_ptr, tl.load(cnt_ptr) + 1)


def _make_state():
    box = []

    def state(device):
        if not box:
            box.append(torch.zeros(1, dtype=torch.int32, device=device))
            box.append(torch.zeros(1 << 16, device=device))
        return box[0], box[1]
    return state


_state = _make_state()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        calls, stash = _state(x.device)
        _relu_or_replay[(triton.cdiv(n, 1024),)](x, y, stash, calls, n, LIMIT=8, BLOCK=1024)
        _tick[(1,)](calls)
        return y
