"""The numbers of this directory's README that no benchmark prints: per-problem moves on the held-out split, the
training prompts' rates at their first and second visit, and update_noise's rows against the anchor subset.

    python benchmarks/results/rl_anchor_cpu_20261207/analysis.py      # from the repository root
"""
import collections
import gzip
import json
import random
from pathlib import Path

D = Path(__file__).parent
START = D.parent / "rl_temp0.7_h200_20261206c"


def ok(stages):
    return sum(s == "ok" for s in stages)


for seed in (0, 1):
    a = json.loads((D / f"heldout_after_seed{seed}_cpu.json").read_text())
    s = json.loads((START / f"heldout_start_seed{seed}_cpu.json").read_text())
    up = sum(ok(v) > ok(s["by_problem"][p]) for p, v in a["by_problem"].items())
    down = sum(ok(v) < ok(s["by_problem"][p]) for p, v in a["by_problem"].items())
    print(f"held-out seed {seed}: start {s['correct_rate']:.3f} -> {a['correct_rate']:.3f}; {up} problems up, {down} down")

rates = json.loads((D / "train_rates_cpu_partial.json").read_text())["by_problem"]
rows = [json.loads(x) for x in gzip.open(D / "rl_hrd" / "rollouts.jsonl.gz")]
first_step, visits = {}, collections.defaultdict(lambda: ([], []))
for r in rows:
    first_step.setdefault(r["pid"], r["step"])
    visits[r["pid"]][r["step"] != first_step[r["pid"]]].append(r["ok"] is True)
twice = [p for p, (v1, v2) in visits.items() if v1 and v2]
mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
print(f"{len(twice)} training prompts seen twice: filter's start rate {mean([ok(rates[p]) / len(rates[p]) for p in twice]):.3f}, "
      f"first visit {mean([mean(visits[p][0]) for p in twice]):.3f}, second {mean([mean(visits[p][1]) for p in twice]):.3f}")

corpus = [json.loads(x) for x in Path("data/corpus.jsonl").read_text().splitlines() if x.strip()]
anchor = random.Random(0).sample(corpus, 1500)  # how .scratch/anchor.jsonl was drawn
shuffled = list(corpus)
random.Random(0).shuffle(shuffled)  # benchmarks/update_noise.py --seed 0 --n 48
ids, texts = {r["id"] for r in anchor}, {r["response"] for r in anchor}
print(f"update_noise's 48 rows: {sum(r['id'] in ids for r in shuffled[:48])} in the anchor subset, "
      f"{sum(r['response'] in texts for r in shuffled[:48])} with a response text found there")
