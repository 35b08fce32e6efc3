"""Where this run's verification time went: the rollouts' `phases_s` over distinct verifications (the completions
of a group that repeat a code share one verdict, and so one `phases_s`). Prints phases.txt's table.

    python benchmarks/results/rl_lora_lr1e-3_h100_20261207/phases.py > benchmarks/results/rl_lora_lr1e-3_h100_20261207/phases.txt
"""
import gzip
import json
import statistics
from pathlib import Path

D = Path(__file__).resolve().parent
rows = [json.loads(x) for x in gzip.open(D / "rl_hrd" / "rollouts.jsonl.gz", "rt")]
steps = len({r["step"] for r in rows})
distinct = {json.dumps(r["phases_s"], sort_keys=True): r["phases_s"] for r in rows if r.get("phases_s")}
print(f"{len(distinct)} distinct verifications over {steps} steps")
print("| phase | verifications | median s | p90 s | max s | seconds a step (sum / steps) |")
print("|---|---|---|---|---|---|")
for k in ("reference", "reference_runs", "lock", "correctness", "timing_lock", "timing", "ref_timing_lock", "ref_timing"):
    v = sorted(p[k] for p in distinct.values() if p.get(k) is not None)
    print(f"| {k} | {len(v)} | {statistics.median(v):.2f} | {v[int(0.9 * (len(v) - 1))]:.1f} | {v[-1]:.1f} "
          f"| {sum(v) / steps:.1f} |")
