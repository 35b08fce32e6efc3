"""Compare `python -m training.rl` runs (e.g. HRD against the uniform reward) from their run directories.

    python benchmarks/rl_report.py RUN_DIR [RUN_DIR ...] [--out FILE.md] [--png FILE.png]

Reads each run's heldout.jsonl (held-out correct rate before/after), log_history.json (per-step
training metrics; for a run stopped before writing it, the trainer_state.json beside it or in its last
checkpoint) and rollouts.jsonl (verdicts of every training completion) and prints one markdown table;
nothing is recomputed or estimated beyond means over what the run logged. `--png` draws the runs'
main curves on shared axes.
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from pathlib import Path


def read_jsonl(path: Path | str) -> list[dict]:
    """The rows of a JSONL file (gzipped if its name ends in .gz), or of its gzipped copy (how results/ keeps
    large rollout logs); none if neither exists."""
    path = Path(path)
    gz = path if path.suffix == ".gz" else path.with_name(path.name + ".gz")
    if path.exists() and path.suffix != ".gz":
        text = path.read_text()
    elif gz.exists():
        text = gzip.decompress(gz.read_bytes()).decode()
    else:
        return []
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def history(run: Path) -> list[dict]:
    """The run's per-step log: log_history.json, else the newest trainer_state.json it holds."""
    if (run / "log_history.json").exists():
        return json.loads((run / "log_history.json").read_text())
    states = [run / "trainer_state.json"] + sorted(run.glob("checkpoint-*/trainer_state.json"),
                                                   key=lambda p: int(p.parent.name.split("-")[-1]), reverse=True)
    for st in states:
        if st.exists():
            return json.loads(st.read_text()).get("log_history", [])
    return []


def plot(runs: list[Path], path: Path) -> Path | None:
    """The main training curves of every run on shared axes (matplotlib, headless)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from training.rl import CURVES

    curves = CURVES + [("hrd/generate_s", "generation s per step"), ("hrd/verify_s", "verification s per step")]
    fig, axes = plt.subplots(2, 4, figsize=(15, 6.5))
    for run in runs:
        hist = history(run)
        for ax, (key, label) in zip(axes.flat, curves):
            # a metric can be logged as None (e.g. a speedup over no correct completion): no point there
            pts = [(h["step"], float(h[key])) for h in hist if h.get(key) is not None and "step" in h]
            if pts:
                ax.plot(*zip(*pts), marker="o", ms=3, label=run.name)
            ax.set_title(label, fontsize=10)
            ax.set_xlabel("step")
            ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def group_signal(roll: list[dict]) -> tuple[int, int, int, int, int]:
    """(groups, groups whose completions are all right or all wrong, all right, all wrong, duplicate completions)
    over training rollouts grouped by (step, prompt). A group without correctness variance gives its code tokens no
    advantage: its rollouts and their verification taught nothing about correctness."""
    groups: dict = {}
    for r in roll:
        groups.setdefault((r.get("step"), r.get("pid")), []).append(r)
    flat = right = wrong = dup = 0
    for g in groups.values():
        rc = {float(x.get("r_correct") or 0.0) for x in g}
        if len(rc) == 1:
            flat += 1
            right += rc == {1.0}
            wrong += rc == {0.0}
        dup += len(g) - len({x.get("completion") for x in g})
    return len(groups), flat, right, wrong, dup


def summarize(run: Path) -> dict:
    """One row of numbers for a run directory."""
    held = {r["tag"]: r for r in read_jsonl(run / "heldout.jsonl")}
    hist = history(run)
    # a training step's log entry (plan_token_frac is logged every step; the correct rate not on a step whose every
    # rollout went unscored)
    steps = [h for h in hist if "hrd/plan_token_frac" in h or "hrd/correct_rate" in h]
    roll = [r for r in read_jsonl(run / "rollouts.jsonl") if r.get("mode") == "train"]

    def mean(key, rows=steps):
        xs = [float(h[key]) for h in rows if h.get(key) is not None]
        return statistics.mean(xs) if xs else None

    half = max(1, len(steps) // 2)
    fmt = lambda x, d=3: "-" if x is None else f"{x:.{d}f}"  # noqa: E731
    before, after = held.get("before", {}), held.get("after", {})
    reward = (after or before).get("reward") or (run.name.split("_")[-1])
    times = [float(h["step_time"]) for h in steps if "step_time" in h]
    scored = [r for r in roll if r.get("stage") != "verifier-error"]  # unscored rollouts form no group
    signal = group_signal(scored)
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
        "groups without correctness variance (all right / all wrong)": "{1} of {0} ({2} / {3})".format(*signal),
        "duplicate completions within a group": f"{signal[4]} of {len(scored)}",
        "rollouts unscored (verifier-error)": f"{len(roll) - len(scored)} of {len(roll)}",
        # on a GPU (training.rl logs them since 2026-12-06): is the trainer starving the verifier of memory?
        "trainer peak reserved GiB, max": fmt(max((float(h["hrd/gpu_peak_reserved_gb"]) for h in steps
                                                   if h.get("hrd/gpu_peak_reserved_gb") is not None), default=None), 1),
        "GPU free GiB when verifying, min": fmt(min((float(h["hrd/gpu_free_gb"]) for h in steps
                                                     if h.get("hrd/gpu_free_gb") is not None), default=None), 1),
        "median step s": fmt(statistics.median(times) if times else None, 1),
        "median generate s": fmt(statistics.median([float(h["hrd/generate_s"]) for h in steps
                                                    if "hrd/generate_s" in h])
                                 if any("hrd/generate_s" in h for h in steps) else None, 1),
        "median verify s": fmt(statistics.median([float(h["hrd/verify_s"]) for h in steps if "hrd/verify_s" in h])
                               if any("hrd/verify_s" in h for h in steps) else None, 1),
        # per token, 2 significant digits: a LoRA run's 4e-5 printed as 0.0000 with fixed decimals
        "final KL": "-" if not steps or "kl" not in steps[-1] else f"{float(steps[-1]['kl']):.2g}",
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
    ap.add_argument("--png", type=Path, help="also draw the runs' main curves on shared axes")
    a = ap.parse_args(argv)
    missing = [str(r) for r in a.runs if not r.is_dir()]
    if missing:
        print(f"not a run directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    md = table([summarize(r) for r in a.runs])
    print(md)
    if a.out:
        a.out.write_text(md)
    if a.png and plot(a.runs, a.png) is None:
        print("--png: matplotlib is not installed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
