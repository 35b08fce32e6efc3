"""Timing shared by the reference and candidate workers, so both sides are measured alike.

On a GPU: CUDA events around each call after warm-up, the L2 cache flushed before every call (a
write of a buffer larger than L2), the median reported. `wall_ms` re-times with full
synchronisation, for speedups that look too good (work hidden on another stream, asynchronous
tricks). On a CPU (`VerifyConfig.time_on_cpu`, for tests of the timing protocol) both are wall clock
readings: the interpreter's speed says nothing about a GPU.

`before(i)` runs before call i's cache flush and `after(i, n, out)` after its time is taken, both
outside the timed window: the candidate worker uses them to refill inputs and check outputs.
"""
from __future__ import annotations

import statistics
import time
from typing import Any, Callable

import torch

_perf_counter = time.perf_counter  # bound before any candidate code is imported

Before = Callable[[int], None] | None
After = Callable[[int, int, Any], None] | None


def _flush_buffer(device: str) -> torch.Tensor | None:
    if device != "cuda":
        return None
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20) or (50 << 20)
    return torch.empty(max(2 * l2, 256 << 20) // 4, dtype=torch.int32, device="cuda")


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def event_ms(fn, budget_ms: float = 100.0, warmup: int = 3, max_reps: int = 200, device: str = "cuda",
             before: Before = None, after: After = None, counted: Callable[[], bool] | None = None) -> float:
    """Median milliseconds of `fn()` by CUDA events (wall clock on a CPU), L2 flushed between calls. With `counted`
    (asked after `before(i)`), only the calls it says count make the median (all of them when none does)."""
    buf = _flush_buffer(device)
    for _ in range(warmup):
        fn()
    _sync(device)
    t0 = _perf_counter()
    fn()
    _sync(device)
    est = max((_perf_counter() - t0) * 1e3, 1e-3)
    reps = int(min(max_reps, max(5, budget_ms / est)))
    times, kept = [], []
    for i in range(reps):
        if before:
            before(i)
        kept.append(counted() if counted else True)
        if buf is None:
            t0 = _perf_counter()
            out = fn()
            times.append((_perf_counter() - t0) * 1e3)
        else:
            buf.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            out = fn()
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e))
        if after:
            after(i, reps, out)
        del out
    _sync(device)
    return statistics.median([t for t, k in zip(times, kept) if k] or times)


def wall_ms(fn, reps: int = 10, device: str = "cuda", before: Before = None, after: After = None) -> float:
    """Median milliseconds of `fn()` with the device synchronised before and after each call."""
    buf = _flush_buffer(device)
    fn()
    times = []
    for i in range(reps):
        if before:
            before(i)
        if buf is not None:
            buf.zero_()
        _sync(device)
        t0 = _perf_counter()
        out = fn()
        _sync(device)
        times.append((_perf_counter() - t0) * 1e3)
        if after:
            after(i, reps, out)
        del out
    return statistics.median(times)
