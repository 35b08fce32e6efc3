"""Where a problem's reference run spends its seconds, before any candidate can be checked.

    python benchmarks/reference_latency.py [--device auto|cuda|cpu] [--reps N] [--profile] [--out FILE]

For each level-1-style module of the language-server latency benchmark (benchmarks/lsp_latency_modules/), the
verifier's reference run with the warm pool (what the language server and the trainer use), REPS times: its wall
time and the reference worker's own clock (size plan, runs of every input variant, saving). Then, in this process
(no sandbox), the size plan alone, cold (the first plan of the process) and warm (the same plan again): their
difference is the device's first-use cost a worker's warm-up can take off the job's clock. `--profile` adds the
cold plan's top functions by cumulative time (cProfile).
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import machine  # noqa: E402
from verifier import VerifyConfig  # noqa: E402
from verifier import problem as P  # noqa: E402
from verifier.runner import prepare_reference, prewarm  # noqa: E402

MODULES = ROOT / "benchmarks" / "lsp_latency_modules"
PHASES = ("reference_plan", "reference_runs", "reference_save")


def sandboxed(cfg: VerifyConfig, reps: int) -> tuple[list[str], list[float]]:
    """Table rows: each module's reference run on a warm worker of the pool; and the warm-up seconds of fresh
    reference workers (what a request waits when it comes before the pool's replacement is warm)."""
    from verifier.pool import spawn
    from verifier.runner import _limits

    rows, warmups = [], []
    for path in sorted(MODULES.glob("*.py")):
        src = path.read_text()
        walls, clocks = [], []
        for _ in range(reps):
            prewarm(cfg)  # a warm worker, as when requests are further apart than a worker's warm-up
            t0 = time.monotonic()
            ref = prepare_reference(src, cfg)
            walls.append(time.monotonic() - t0)
            clocks.append(dict(ref.clock))
            ref.close()
        med = {k: statistics.median(c.get(k, 0.0) for c in clocks) for k in PHASES}
        rows.append(f"| {path.stem} | {statistics.median(walls):.2f} | {min(walls):.2f} | "
                    + " | ".join(f"{med[k]:.2f}" for k in PHASES) + " |")
    for _ in range(reps):
        prewarm(cfg)  # the pool's own top-ups are done: this one warms alone
        t0 = time.monotonic()
        w = spawn("reference", cfg.device, _limits(cfg))
        if w.wait_warm(120.0):
            warmups.append(time.monotonic() - t0)
        w.close()
    return rows, warmups


def in_process(device: str, profile: bool) -> tuple[list[str], str]:
    """Table rows: each module's size plan in this process, cold then warm; and the cold plans' profile."""
    import torch

    from verifier.worker_reference import plan_small

    if device == "cuda":
        torch.empty(1, device="cuda")  # the context, as every worker's warm-up makes it
    prof = cProfile.Profile() if profile else None
    rows = []
    for path in sorted(MODULES.glob("*.py")):
        src = path.read_text()
        consts = P.size_constants(src)
        cfg = VerifyConfig(device=device).resolved()
        times = []
        for i in range(2):
            if prof is not None and i == 0:
                prof.enable()
            t0 = time.monotonic()
            plan_small(src, consts, cfg.per_tensor, cfg.total, device=device)
            if device == "cuda":
                torch.cuda.synchronize()
            times.append(time.monotonic() - t0)
            if prof is not None and i == 0:
                prof.disable()
        rows.append(f"| {path.stem} | {times[0]:.3f} | {times[1]:.3f} |")
    text = ""
    if prof is not None:
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
        text = buf.getvalue()
    return rows, text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    cfg = VerifyConfig(device=args.device, pool=True).resolved()
    lines = ["# Reference run latency", "", "Command:", "",
             f"    python benchmarks/reference_latency.py --device {args.device} --reps {args.reps}"
             + (" --profile" if args.profile else "") + (f" --out {args.out}" if args.out else ""), "",
             f"Machine: {machine()}. Device: {cfg.device}.", "",
             f"## Through the warm pool, sandboxed ({args.reps} runs each; seconds, medians but 'fastest')", "",
             "| module | wall | fastest wall | plan | runs | save |", "|---|---|---|---|---|---|"]
    rows, warmups = sandboxed(cfg, args.reps)
    lines += rows
    lines += ["", "wall: prepare_reference from call to return on a warm worker (dispatch, the worker's job, reading "
              "its files); plan, runs, save: the worker's own clock.", "",
              f"A fresh reference worker's warm-up (start to ready for a job; {len(warmups)} of {args.reps} warmed "
              f"within 120 s): median {statistics.median(warmups) if warmups else float('nan'):.2f} s, "
              f"max {max(warmups) if warmups else float('nan'):.2f} s. A request that comes sooner after the one "
              "before than this waits for it, unless the pool keeps a spare (the language server keeps 2).", ""]
    rows, prof = in_process(cfg.device, args.profile)
    lines += ["## The size plan alone, in this process (seconds)", "", "| module | cold (first of the process) | warm |",
              "|---|---|---|", *rows]
    if prof:
        lines += ["", "## Profile of the cold plans", "", "```", prof.strip(), "```"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)


if __name__ == "__main__":
    main()
