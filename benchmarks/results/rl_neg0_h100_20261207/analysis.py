"""Recomputes this directory's held-out comparison from its files: rates per eval seed and per-problem moves
(start -> final, same prompts, seeds and sampler on one H100).  python analysis.py > analysis.txt"""
import json
from pathlib import Path

D = Path(__file__).parent


def load(name):
    return json.loads((D / name).read_text())["by_problem"]


def ok(v):
    return sum(x == "ok" for x in v)


runs = {"seed 0": ("heldout_start_seed0_gpu.json", {"hrd": "heldout_after_hrd_seed0_gpu.json",
                                                     "uniform": "heldout_after_uniform_seed0_gpu.json"}),
        "seed 1 (first 16 problems)": ("heldout_start_seed1_gpu_partial.json",
                                       {"hrd": "heldout_hrd_seed1_gpu_partial.json",
                                        "uniform": "heldout_uniform_seed1_gpu_partial.json"})}
tot = {}
for seed, (start_f, finals) in runs.items():
    start = load(start_f)
    n = sum(len(v) for v in start.values())
    s_ok = sum(ok(v) for v in start.values())
    tot.setdefault("start", [0, 0])
    tot["start"][0] += s_ok; tot["start"][1] += n
    print(f"{seed}: start {s_ok}/{n} = {s_ok / n:.3f}")
    for r, f in finals.items():
        fin = load(f)
        assert fin.keys() == start.keys()
        f_ok = sum(ok(v) for v in fin.values())
        up = [k for k in start if ok(fin[k]) > ok(start[k])]
        down = [k for k in start if ok(fin[k]) < ok(start[k])]
        tot.setdefault(r, [0, 0])
        tot[r][0] += f_ok; tot[r][1] += n
        print(f"  {r}: {f_ok}/{n} = {f_ok / n:.3f}; {len(up)} problems up, {len(down)} down; "
              f"down: {', '.join(f'{k} {ok(start[k])}->{ok(fin[k])}' for k in down)}")
print("both: " + "; ".join(f"{r} {a}/{b} = {a / b:.3f}" for r, (a, b) in tot.items()))

# training prompts the run saw twice (epoch 1.6): correct rate at the first visit and at the second
import gzip

for r in ("hrd", "uniform"):
    rows = [json.loads(x) for x in gzip.open(D / f"rl_{r}" / "rollouts.jsonl.gz", "rt")]
    steps = {}
    for x in rows:
        steps.setdefault(x["pid"], {}).setdefault(x["step"], []).append(x["r_correct"] or 0.0)
    twice = {p: sorted(v.items()) for p, v in steps.items() if len(v) >= 2}
    first = [c for v in twice.values() for c in v[0][1]]
    second = [c for v in twice.values() for c in v[1][1]]
    print(f"{r}: {len(twice)} training prompts seen twice: first visit {sum(first) / len(first):.3f}, "
          f"second {sum(second) / len(second):.3f} ({len(first)} samples each)")
