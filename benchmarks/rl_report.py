"""Compare `python -m training.rl` runs (e.g. HRD against the uniform reward) from their run directories.

    python benchmarks/rl_report.py RUN_DIR [RUN_DIR ...] [--out FILE.md]

Reads each run's heldout.jsonl (held-out correct rate before/after), log_history.json (per-step
training metrics) and rollouts.jsonl (verdicts of every training completion) and prints one
markdown table; nothing is recomputed or estimated beyond means over what the run logged.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path


def _jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def summarize(run: Path) -> dict:
    """One row of numbers for a run directory."""
    held = {r["tag"]: r for r in _jsonl(run / "heldout.jsonl")}
    hist = json.loads((run / "log_history.json").read_text()) if (run / "log_history.json").exists() else []
    steps = [h for h in hist if "hrd/correct_rate" in h]
    roll = [r for r in _jsonl(run / "rollouts.jsonl") if r.get("mode") == "train"]

    def mean(key, rows=steps):
        xs = [float(h[key]) for h in rows if h.get(key) is not None]
        return statistics.mean(xs) if xs else None

    half = max(1, len(steps) // 2)
    fmt = lambda x, d=3: "-" if x is None else f"{x:.{d}f}"  # noqa: E731
    before, after = held.get("before", {}), held.get("after", {})
    reward = (after or before).get("reward") or (run.name.split("_")[-1])
    times = [float(h["step_time"]) for h in steps if "step_time" in h]
    return {
        "run": run.name, "reward": reward, "steps": len(steps),
        "held-out correct before": fmt(before.get("correct_rate")),
        "held-out correct after": fmt(after.get("correct_rate")),
        "held-out samples": str(after.get("samples") or before.get("samples") or "-"),
        "held-out speedup (correct) before": fmt(before.get("mean_speedup_correct"), 2),
        "held-out speedup (correct) after": fmt(after.get("mean_speedup_correct"), 2),
        "train correct, first half": fmt(mean("hrd/correct_rate", steps[:half])),
        "train correct, second half": fmt(mean("hrd/correct_rate", steps[half:]) if len(steps) > 1 else None),
        "train R_speedup, first half": fmt(mean("hrd/speedup_reward", steps[:half])),
        "train R_speedup, second half": fmt(mean("hrd/speedup_reward", steps[half:]) if len(steps) > 1 else None),
        "completions verified / reused": f"{sum(int(h.get('hrd/verified', 0)) for h in steps)} / "
                                         f"{sum(int(h.get('hrd/reused', 0)) for h in steps)}",
        "rollouts logged": str(len(roll)),
        "median step s": fmt(statistics.median(times) if times else None, 1),
        "median verify s": fmt(statistics.median([float(h["hrd/verify_s"]) for h in steps if "hrd/verify_s" in h])
                               if any("hrd/verify_s" in h for h in steps) else None, 1),
        "final KL": fmt(float(steps[-1]["kl"]) if steps and "kl" in steps[-1] else None, 4),
    }


def table(rows: list[dict]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(["metric"] + [r["run"] for r in rows]) + " |",
             "|---" * (len(rows) + 1) + "|"]
    for k in keys[1:]:
        lines.append("| " + " | ".join([k] + [str(r[k]) for r in rows]) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    missing = [str(r) for r in a.runs if not r.is_dir()]
    if missing:
        print(f"not a run directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    md = table([summarize(r) for r in a.runs])
    print(md)
    if a.out:
        a.out.write_text(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
