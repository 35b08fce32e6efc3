"""GPU timing shared by the reference and candidate workers, so both sides are measured alike.

CUDA events around each call after warm-up, the L2 cache flushed before every call (a write of a
buffer larger than L2), the median reported. `wall_ms` re-times with full synchronisation, for
speedups that look too good (work hidden on another stream, asynchronous tricks).
"""
from __future__ import annotations

import statistics
import time

import torch

_perf_counter = time.perf_counter  # bound before any candidate code is imported


def _flush_buffer() -> torch.Tensor:
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20) or (50 << 20)
    return torch.empty(max(2 * l2, 256 << 20) // 4, dtype=torch.int32, device="cuda")


def event_ms(fn, budget_ms: float = 100.0, warmup: int = 3, max_reps: int = 200) -> float:
    """Median milliseconds of `fn()` by CUDA events, L2 flushed between calls."""
    Event, sync = torch.cuda.Event, torch.cuda.synchronize
    buf = _flush_buffer()
    for _ in range(warmup):
        fn()
    sync()
    t0 = _perf_counter()
    fn()
    sync()
    est = max((_perf_counter() - t0) * 1e3, 1e-3)
    reps = int(min(max_reps, max(5, budget_ms / est)))
    times = []
    for _ in range(reps):
        buf.zero_()
        s, e = Event(enable_timing=True), Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    sync()
    return statistics.median(times)


def wall_ms(fn, reps: int = 10) -> float:
    """Median milliseconds of `fn()` with the device synchronised before and after each call."""
    sync = torch.cuda.synchronize
    buf = _flush_buffer()
    fn()
    times = []
    for _ in range(reps):
        buf.zero_()
        sync()
        t0 = _perf_counter()
        fn()
        sync()
        times.append((_perf_counter() - t0) * 1e3)
    return statistics.median(times)
