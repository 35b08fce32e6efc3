"""Where an RL run's verification time went: the rollouts' `phases_s` over distinct verifications (the completions
of a group that repeat a code share one verdict, and so one `phases_s`). Prints a markdown table; `--all` adds
every phase the verifier logged (worker start, import, setup, first trial, ...), not only the waits and the runs;
`--per-step` then counts, per step, the correctness phases that spent over 10 s outside the candidate's own work
(import, setup, trials, state checks): a worker still starting when its job was dispatched.

    python benchmarks/rl_phases.py RUN_DIR/rollouts.jsonl[.gz] [--all] [--per-step] > phases.txt
"""
import argparse
import json
import statistics

from rl_report import read_jsonl  # plain or .gz

MAIN = ("reference", "reference_runs", "warm_wait", "lock", "correctness", "timing_lock", "timing", "ref_timing_lock",
        "ref_timing")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("rollouts")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--per-step", action="store_true")
    a = ap.parse_args()
    rows = read_jsonl(a.rollouts)
    steps = len({r["step"] for r in rows})
    distinct = {json.dumps(r["phases_s"], sort_keys=True): r["phases_s"] for r in rows if r.get("phases_s")}
    keys = list(MAIN)
    if a.all:
        keys += sorted({k for p in distinct.values() for k in p} - set(MAIN))
    print(f"{len(distinct)} distinct verifications over {steps} steps")
    print("| phase | verifications | median s | p90 s | max s | seconds a step (sum / steps) |")
    print("|---|---|---|---|---|---|")
    for k in keys:
        v = sorted(p[k] for p in distinct.values() if p.get(k) is not None)
        if v:
            print(f"| {k} | {len(v)} | {statistics.median(v):.2f} | {v[int(0.9 * (len(v) - 1))]:.1f} | {v[-1]:.1f} "
                  f"| {sum(v) / steps:.1f} |")
    if a.per_step:
        by_step: dict[int, list[float]] = {}
        for r in rows:  # each distinct verification once, under the first step that logged it
            p = r.get("phases_s")
            if p and distinct.pop(json.dumps(p, sort_keys=True), None) is not None and "correctness" in p:
                own = sum(p.get(k) or 0 for k in ("import", "setup", "trials", "state_checks"))
                by_step.setdefault(r["step"], []).append(p["correctness"] - own)
        print("\n| step | correctness phases | over 10 s outside the candidate's own work | longest such s |")
        print("|---|---|---|---|")
        for step, gaps in sorted(by_step.items()):
            print(f"| {step} | {len(gaps)} | {sum(g > 10 for g in gaps)} | {max(gaps):.1f} |")


if __name__ == "__main__":
    main()
