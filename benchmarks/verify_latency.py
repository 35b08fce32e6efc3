"""Verification latency: one candidate, and a batch of 8 candidates of one problem.

    python benchmarks/verify_latency.py [--device auto|cuda|cpu] [--reps N] [--out FILE]

The problem is a 4096 x 4096 fp32 row softmax (64 MiB in, 64 MiB out): big enough that timing is
meaningful, small enough that moving tensors between processes is not what is measured. The 8
batch candidates are one honest kernel with 8 different block configurations, so each compiles
its own Triton kernel. "cold" is the first verification of the process (it also times the eager
and torch.compile baselines, which are then cached per problem); "warm" are the later ones.
Two modes: fresh sandboxes started per verification (the CLI), and the warm pool (the language
server and the trainer), whose one-use sandboxes have already imported torch and Triton.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verifier import VerifyConfig, verify, verify_batch  # noqa: E402
from verifier.runner import prewarm  # noqa: E402

PROBLEM = '''import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)

rows = 4096
cols = 4096

def get_inputs():
    return [torch.randn(rows, cols)]

def get_init_inputs():
    return []
'''

CANDIDATE = '''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=m, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * stride + offs, e / tl.sum(e, axis=0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        block = max(triton.next_power_of_2(x.shape[1]), %d)
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=block, num_warps=%d)
        return y
'''


def variants(n: int) -> list[str]:
    cfgs = [(16, 4), (16, 8), (32, 4), (32, 8), (64, 4), (64, 8), (128, 16), (16, 16)]
    return [CANDIDATE % cfgs[i % len(cfgs)] for i in range(n)]


def measure(cfg: VerifyConfig, reps: int, rows: list, tag: str) -> tuple[float, float, float]:
    """(cold single, median warm single, median warm batch of 8) in seconds."""

    def timed(label, fn):
        if cfg.pool:  # let the pool refill between measurements, as it does between user requests
            prewarm(cfg)
        t0 = time.monotonic()
        res = fn()
        dt = time.monotonic() - t0
        vs = res if isinstance(res, list) else [res]
        assert all(v.ok for v in vs), [v.summary() for v in vs if not v.ok]
        rows.append((f"{tag}: {label}", dt, vs[0]))
        print(f"{tag}: {label:24s} {dt:7.2f} s", flush=True)
        return dt

    cold = timed("single, cold", lambda: verify(PROBLEM, variants(1)[0], cfg))
    singles = [timed(f"single, warm #{i + 1}", lambda: verify(PROBLEM, variants(1)[0], cfg)) for i in range(reps)]
    batches = [timed(f"batch of 8, warm #{i + 1}", lambda: verify_batch(PROBLEM, variants(8), cfg))
               for i in range(max(1, reps - 1))]
    return cold, statistics.median(singles), statistics.median(batches)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="auto")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows: list = []
    lines = ["| mode | single, cold (s) | single, warm (s) | batch of 8 (s) | batch / single |", "|---|---|---|---|---|"]
    for pool in (False, True):
        cfg = VerifyConfig(device=args.device, pool=pool).resolved()
        tag = "warm pool" if pool else "fresh sandboxes"
        cold, one, eight = measure(cfg, args.reps, rows, tag)
        lines.append(f"| {tag} | {cold:.2f} | {one:.2f} | {eight:.2f} | {eight / one:.2f}x |")
    v = rows[-1][2]
    lines += ["", f"device {v.device}, isolation {v.isolation}, shapes {v.shapes[0]['inputs']}, "
              f"medians of {args.reps} singles and {max(1, args.reps - 1)} batches; candidate speedup {v.speedup}"]
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
