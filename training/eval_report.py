"""The evaluation report: summary and per-problem rows -> markdown table and PNG chart."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from .metrics import RATE_KEYS

STOP_STAGES = ("parse", "static", "sandbox", "launch", "correctness", "performance", "done")
_COLORS = ("#9e9e9e", "#ef6c00", "#c62828", "#8e24aa", "#1565c0", "#00838f", "#2e7d32")
NOT_MEASURED = "speed not measured"


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _x(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}x"


def markdown(report: dict[str, Any]) -> str:
    """The report as markdown: run facts, a summary table per level, one row per problem."""
    cfg, ks = report["config"], report["config"]["k"]
    speed = report["speed_measured"]
    lines = [f"# Evaluation: {cfg['model']}", "",
             f"- command: `{report['command']}`",
             f"- problems: `{cfg['problems']}`; {cfg['n']} samples per problem (temperature {cfg['temperature']}, "
             f"top_p {cfg['top_p']}, max_new_tokens {cfg['max_new_tokens']}, seed {cfg['seed']})",
             f"- verification: device {cfg['device']}"
             + ("" if speed else f" (Triton interpreter: {NOT_MEASURED}; fast1/fast2/speedups are —)"),
             f"- wall time of this invocation: {report['elapsed_s']:.0f} s", ""]
    pk = [f"pass@{k}" for k in ks]
    head = ["level", "problems", "samples", *RATE_KEYS, "geomean vs eager", "geomean vs compile", *pk]
    lines += ["## Summary", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, s in [*report["levels"].items(), *([("all", report["all"])] if len(report["levels"]) > 1 else [])]:
        cells = [name, str(s["problems"]), str(s["samples"]), *(_pct(s[k]) for k in RATE_KEYS)]
        cells += [_x(s["geomean_speedup_eager"]), _x(s["geomean_speedup_compile"])]
        cells += [_pct(s[p]) for p in pk]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Rates are over all samples; geometric means over correct samples; pass@k is the unbiased "
              "estimator (Chen et al. 2021) averaged over problems.", "",
              "## Per problem", ""]
    head = ["level", "problem", "correct", *pk, "best vs eager", "best vs compile", "failing layer", "samples"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in report["rows"]:
        fail = r["failing"]
        cells = [r["level"], r["id"], f"{r['correct']}/{r['n']}", *(_pct(r.get(p)) for p in pk),
                 _x(r["best_speedup"]), _x(r["best_speedup_compile"]),
                 "—" if fail is None else f"{fail['stage']}/{fail['rule']}",
                 ", ".join(s["stage"] if s["correct"] else f"{s['stage']}/{s['rule']}" for s in r["samples"])]
        lines.append("| " + " | ".join(cells) + " |")
    if report["errors"]:
        lines += ["", "## Not evaluated", "", "| level | problem | error |", "|---|---|---|"]
        for e in report["errors"]:
            lines.append(f"| {e['level']} | {e['id']} | {e['error'].replace('|', '/')[:300]} |")
    return "\n".join(lines) + "\n"


def stop_counts(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """How many samples stopped at each layer ("done" = verified)."""
    counts = {s: 0 for s in STOP_STAGES}
    for r in rows:
        for s in r["samples"]:
            counts[s["stage"] if s["stage"] in counts else "parse"] += 1
    return counts


def chart(report: dict[str, Any], path: Path) -> None:
    """A PNG: the rates and pass@k per level, and where the samples stopped."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = list(report["levels"])
    keys = [k for k in (*RATE_KEYS, *(f"pass@{k}" for k in report["config"]["k"]))
            if any(report["levels"][lv][k] is not None for lv in levels)]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    width = 0.8 / max(1, len(levels))
    for i, lv in enumerate(levels):
        vals = [100 * (report["levels"][lv][k] or 0.0) for k in keys]
        xs = [j + (i - (len(levels) - 1) / 2) * width for j in range(len(keys))]
        bars = ax1.bar(xs, vals, width, label=lv)
        ax1.bar_label(bars, fmt="%.0f", fontsize=7)
    ax1.set_xticks(range(len(keys)), keys, rotation=20)
    ax1.set_ylabel("%")
    ax1.set_ylim(0, 110)
    ax1.legend(fontsize=8)
    ax1.set_title("KernelBench metrics" + ("" if report["speed_measured"] else f" ({NOT_MEASURED}: CPU)"))
    bottom = [0] * len(levels)
    for stage, color in zip(STOP_STAGES, _COLORS):
        counts = [stop_counts([r for r in report["rows"] if r["level"] == lv])[stage] for lv in levels]
        ax2.barh(levels, counts, left=bottom, color=color, label="verified" if stage == "done" else stage)
        bottom = [b + c for b, c in zip(bottom, counts)]
    ax2.set_xlabel("samples")
    ax2.set_title("where samples stopped")
    ax2.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=4)
    fig.suptitle(str(report["config"]["model"])[:100], fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
