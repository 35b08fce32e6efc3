"""Verify an RL run's logged steps again, the way `training.rl` verifies a step (its `VerifierReward`, the same
jobs and sandboxes), once per timing mode, and print how long each step's verification took in each: the A/B behind
RL's `batch_timing` and `timing_patience_s` (`verifier/runner.py`), on the same candidates.

    python benchmarks/rl_verify_replay.py RUN/rollouts.jsonl.gz --steps 0 1 --jobs 14 > replay.md

Modes: `one-by-one` times each kernel as it passes (the language server's way), `batch` times a problem's correct
kernels together after its correctness phases, `batch+patience` also lets the step's other correctness phases run
before it takes the GPU (`timing_patience_s`, --patience); the batch modes give every problem of the step its thread
at once (`training.rl.problem_threads`). A mode may name a warm pool depth after a colon, `one-by-one:42`: that many
warm candidate sandboxes kept ahead (RL's `pool_size`; default --pool-size, else --jobs). Each (step, mode) starts with no cached verdict and no
cached baseline, as a step of a run meets new problems. The modes run interleaved step by step, so a drift of the
machine falls on all of them. Verdicts are compared with the step's first mode: only the times may differ.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from machine import machine  # noqa: E402  (benchmarks/machine.py)
from rl_report import read_jsonl  # noqa: E402  (plain or .gz)

WAITS = ("warm_wait", "lock", "timing_lock", "ref_timing_lock")


def modes(patience: float) -> dict[str, dict]:
    return {"one-by-one": dict(batch_timing=False, timing_patience_s=0.0),
            "batch": dict(batch_timing=True, timing_patience_s=0.0),
            "batch+patience": dict(batch_timing=True, timing_patience_s=patience)}


def replay_step(rows: list[dict], problems: dict[str, str], cfg, jobs: int) -> dict:
    """Verify one step's completions as `training.rl` does; its wall time, counts and summed waits."""
    from training import rl
    from verifier import runner

    runner._TIMING_CACHE.clear()  # a step meets its problems' baselines untimed
    reward = rl.VerifierReward(cfg, jobs=jobs)
    t0 = time.monotonic()
    results = reward._verify([r["completion"] for r in rows], [[0]] * len(rows), [problems[r["pid"]] for r in rows])
    wall = time.monotonic() - t0
    distinct = {json.dumps(r["verdict"], sort_keys=True, default=str): r["verdict"]
                for r in results if r["verdict"] and r["verdict"].get("phases_s")}
    phases = [v["phases_s"] for v in distinct.values()]
    out = {"wall_s": wall, "verified": reward.stats.get("verified", 0),
           "correct": sum(bool(v.get("ok")) for v in distinct.values()),
           "timed": sum("timing" in p for p in phases),
           "speedups": [v.get("speedup") for v in distinct.values() if v.get("speedup")],
           "verdicts": [(r["verdict"] or {}).get("ok") for r in results]}
    for k in WAITS:
        out[k] = sum(p.get(k, 0.0) for p in phases)
    return out


def main(argv: list[str] | None = None) -> int:
    from training.rl import _verify_config
    from verifier.runner import prewarm

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rollouts", help="a training.rl run's rollouts.jsonl[.gz]")
    ap.add_argument("--prompts", default=str(ROOT / "benchmarks" / "rl_prompts_h200.jsonl"))
    ap.add_argument("--steps", type=int, nargs="+", default=[0])
    ap.add_argument("--modes", nargs="+", default=["one-by-one", "batch", "batch+patience"],
                    help=f"of {', '.join(modes(0.0))}, each optionally with :POOL_SIZE")
    ap.add_argument("--pool-size", type=int, help="warm candidate sandboxes kept ahead (default --jobs)")
    ap.add_argument("--patience", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=14)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--time-limit", type=float, default=None, help="seconds: start no (step, mode) after this")
    a = ap.parse_args(argv)

    problems = {r["pid"]: r["problem"] for r in map(json.loads, Path(a.prompts).read_text().splitlines())}
    rows = [r for r in read_jsonl(a.rollouts) if r.get("mode", "train") == "train"]
    all_modes = modes(a.patience)
    bad = [m for m in a.modes if m.partition(":")[0] not in all_modes or not (m.partition(":")[2] or "0").isdigit()]
    if bad:
        ap.error(f"unknown mode {bad[0]!r}: one of {', '.join(all_modes)}, optionally with :POOL_SIZE")
    print(f"Machine: {machine()}")
    print(f"Replay of `{a.rollouts}`, {a.jobs} jobs, warm pool {a.pool_size or a.jobs} unless the mode names one, "
          f"patience {a.patience:g} s; seconds summed over a step's "
          "distinct verifications for the waits\n")
    print("| step | mode | verification s | distinct verified | correct | timed | warm_wait | lock | timing_lock "
          "| ref_timing_lock | median speedup | verdicts as the first mode |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    t_start = time.monotonic()
    for step in a.steps:
        step_rows = [r for r in rows if r["step"] == step and r["pid"] in problems]
        n_problems = len({r["pid"] for r in step_rows})
        ref = None
        for m in a.modes:
            if a.time_limit is not None and time.monotonic() - t_start > a.time_limit:
                break
            name, _, depth = m.partition(":")
            cfg = _verify_config(a.device, a.jobs, n_problems, pool_size=int(depth) if depth else a.pool_size)
            prewarm(cfg)  # every (step, mode) meets a full warm pool, as a run's step does after its generation
            r = replay_step(step_rows, problems, dataclasses.replace(cfg, **all_modes[name]), a.jobs)
            first = ref is None
            ref = r if first else ref
            agree = "" if first else \
                f"{sum(x == y for x, y in zip(r['verdicts'], ref['verdicts']))}/{len(ref['verdicts'])}"
            med = f"{statistics.median(r['speedups']):.2f}" if r["speedups"] else "-"
            # a row as soon as it is measured: a run cut short keeps what it measured
            print(f"| {step} | {m} | {r['wall_s']:.1f} | {r['verified']} | {r['correct']} | {r['timed']} | "
                  + " | ".join(f"{r[k]:.1f}" for k in WAITS) + f" | {med} | {agree} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
