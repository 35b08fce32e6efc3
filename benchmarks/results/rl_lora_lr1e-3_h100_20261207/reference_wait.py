"""How long each step's problems waited for their reference run (`phases_s.reference`, one value per problem of a
step), against the reference worker's own runs: the wait is a process's first step, when every sandbox is cold
(each device call was a fresh process: steps 0, 4 and 8). Prints reference_wait.txt.

    python benchmarks/results/rl_lora_lr1e-3_h100_20261207/reference_wait.py > benchmarks/results/rl_lora_lr1e-3_h100_20261207/reference_wait.txt
"""
import collections
import gzip
import json
import statistics
from pathlib import Path

D = Path(__file__).resolve().parent
per = {}
for line in gzip.open(D / "rl_hrd" / "rollouts.jsonl.gz", "rt"):
    r = json.loads(line)
    if r.get("phases_s"):
        per[(r["step"], r["pid"])] = r["phases_s"]
by = collections.defaultdict(list)
for (step, _), p in per.items():
    by[step].append(p)
print("| step | problems | reference wait median s | max s | reference runs median s | max s |")
print("|---|---|---|---|---|---|")
for step in sorted(by):
    w = [p["reference"] for p in by[step]]
    runs = [p.get("reference_runs", 0.0) for p in by[step]]
    print(f"| {step} | {len(w)} | {statistics.median(w):.1f} | {max(w):.1f} | {statistics.median(runs):.2f} "
          f"| {max(runs):.1f} |")
