"""Whether an RL run's final checkpoint may become the served one: only when its held-out correct rate did not fall.

The language server loads whatever a run directory publishes (`RUN/LATEST`, `training.checkpoints`). A short GRPO
run can break a policy: on 2026-12-06, 10 steps at lr 1e-4 took the shipped model's held-out correct rate from
0.641 to 0.281 (HRD) and 0.383 (uniform) on an H100 (benchmarks/results/rl_lr1e-4_h100_20261206), and every saved
checkpoint had been published as it was written. With `training.rl --publish gated` (the default) a run publishes
nothing while it trains; at the end its final checkpoint is compared with the run's start on the held-out split
(the same problems, samples and seeds: `training.rl.evaluate_heldout`), and

- served: a copy of `final/` (`RUN/published-step-N/`, so that a later run or resume writing `final/` again cannot
  change what is served) is published;
- refused: nothing new is published; a run directory that has served nothing yet points at the checkpoint the run
  started from, so that `--model RUN` never falls back to the refused `final/` (`checkpoints.resolve`).
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

SERVED_PREFIX = "published-step-"


def decide(before: float | None, after: float | None, tolerance: float = 0.0) -> tuple[bool, str]:
    """(serve?, why): serve when `after` >= `before` - `tolerance`; without both rates there is no evidence."""
    if before is None:
        return False, "no held-out rate of the starting checkpoint in this run (measured with --no-eval-before?)"
    if after is None:
        return False, "no held-out rate of the final checkpoint (--no-eval-after, or no held-out split)"
    if after + 1e-12 >= before - tolerance:
        return True, f"held-out correct rate {before:.3f} -> {after:.3f}"
    if after < before:
        return False, (f"held-out correct rate fell {before:.3f} -> {after:.3f}"
                       + (f" (more than the tolerance {tolerance:g})" if tolerance > 0 else ""))
    return False, f"held-out correct rate {before:.3f} -> {after:.3f}, less than the required gain {-tolerance:g}"


def start_rate(heldout_log: Path) -> float | None:
    """The run's own "before" rate: the first "before" row of RUN/heldout.jsonl (a resumed run keeps it)."""
    try:
        lines = heldout_log.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if row.get("tag") == "before":
            return row.get("correct_rate")
    return None


def serve_copy(final: Path, run: Path, step: int) -> Path:
    """Copy `final` to RUN/published-step-STEP (written beside, then renamed into place) and return it."""
    dst = run / f"{SERVED_PREFIX}{step}"
    tmp = run / f".{dst.name}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(final, tmp)
    if dst.exists():  # the same step published by an earlier invocation: replace it whole
        shutil.rmtree(dst)
    os.replace(tmp, dst)
    return dst
