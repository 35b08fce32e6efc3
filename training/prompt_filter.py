"""Keep the training prompts a policy solves sometimes, but not always: the ones a GRPO group can learn from.

    python -m training.prompt_filter --prompts RUN/prompts.jsonl --rates RATES.json --out prompts_filtered.jsonl \
        [--keep-unmeasured]

RATES.json is `benchmarks/heldout_eval.py --split train --out RATES.json` on the checkpoint the run starts from: per
training problem (`by_problem`), the verdict of each of its n samples. A group (one prompt's completions in a step)
whose completions are all right or all wrong gives its code tokens no advantage; over the 2026-12-05 GRPO runs half
the groups were such (`benchmarks/rl_report.py`), so half of every step's generation and verification taught nothing.
Held-out rows are kept as they are: the split must not move. Training rows the rates do not cover are dropped unless
`--keep-unmeasured`. The output is a prompt set for `training.rl` (`PROMPTS=` of benchmarks/rl_h200_call.sh).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def solved_fraction(stages: list[str]) -> float:
    """The fraction of a problem's samples that verified (`by_problem` lists "ok" or the failing stage per sample)."""
    return sum(s == "ok" for s in stages) / len(stages) if stages else float("nan")


def keep_informative(rows: list[dict], by_problem: dict[str, list[str]], keep_unmeasured: bool = False
                     ) -> tuple[list[dict], dict[str, int]]:
    """(rows kept, counts): held-out rows always; training rows whose solved fraction is strictly between 0 and 1."""
    kept, counts = [], {"heldout": 0, "kept": 0, "always": 0, "never": 0, "unmeasured": 0}
    for r in rows:
        if r.get("split") != "train":
            kept.append(r)
            counts["heldout"] += 1
            continue
        stages = by_problem.get(str(r.get("pid")))
        if not stages:
            counts["unmeasured"] += 1
            if keep_unmeasured:
                kept.append(r)
            continue
        f = solved_fraction(stages)
        if f == 1.0:
            counts["always"] += 1
        elif f == 0.0:
            counts["never"] += 1
        else:
            kept.append(r)
            counts["kept"] += 1
    return kept, counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.prompt_filter", description=__doc__.split("\n\n")[0])
    ap.add_argument("--prompts", required=True, type=Path, help="a prompt set (training.rl's prompts.jsonl)")
    ap.add_argument("--rates", required=True, type=Path,
                    help="benchmarks/heldout_eval.py --split train --out FILE on the starting checkpoint")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--keep-unmeasured", action="store_true", help="keep training rows RATES does not cover")
    a = ap.parse_args(argv)
    try:
        rows = [json.loads(x) for x in a.prompts.read_text().splitlines() if x.strip()]
        rates = json.loads(a.rates.read_text().strip().splitlines()[-1])
    except (OSError, ValueError) as e:
        print(f"prompt_filter: cannot read the inputs: {e}", file=sys.stderr)
        return 2
    if rates.get("split", "train") != "train" or not isinstance(rates.get("by_problem"), dict):
        print("prompt_filter: RATES must be heldout_eval.py's output with --split train (it has per-problem "
              "results of the training prompts)", file=sys.stderr)
        return 2
    kept, counts = keep_informative(rows, rates["by_problem"], a.keep_unmeasured)
    a.out.write_text("".join(json.dumps(r) + "\n" for r in kept))
    print(f"kept {counts['kept']} training prompts solved sometimes (dropped {counts['always']} always solved, "
          f"{counts['never']} never, {counts['unmeasured']} unmeasured"
          f"{', kept' if a.keep_unmeasured else ''}); {counts['heldout']} held-out rows unchanged -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
