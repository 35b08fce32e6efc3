"""How long each RL step's problems waited for their reference run (`phases_s.reference`, one value per problem of a
step), against the reference worker's own runs. A long wait at a process's first step is the sandboxes starting
cold (torch, Triton, a CUDA context each); `training.rl` starts them before the trainer since 4909919. Prints a
markdown table.

    python benchmarks/rl_reference_wait.py RUN_DIR/rollouts.jsonl[.gz] > RUN_DIR/reference_wait.txt
"""
import collections
import statistics
import sys

from rl_report import read_jsonl  # plain or .gz


def main(path: str) -> None:
    per = {}
    for r in read_jsonl(path):
        if r.get("phases_s"):
            per[(r["step"], r["pid"])] = r["phases_s"]  # one verification (and reference) per problem of a step
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


if __name__ == "__main__":
    main(sys.argv[1])
