"""An RL prompt set that trains on one family: a base set's held-out rows unchanged, fresh training problems.

    python benchmarks/family_prompts.py --base benchmarks/rl_prompts_h128.jsonl --family elementwise --n 240 \
        --seed 1 --out PROMPTS.jsonl

The training rows are `training.data.generate` problems of `--family` drawn with `--seed` (a stream other than the
base set's), minus any whose text is already in the base set, whose forward is a held-out problem's forward (the
same op chain at other sizes), that is in the SFT corpus, or that is a near-copy of a KernelBench problem (the
novelty guard `training.rl.build_prompt_set` applies). Ids get the seed (`ew-s1-00012`): a generate call numbers
its samples from 0, so a bare id could name a held-out problem of the base set.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def forward_source(problem: str) -> str:
    """The `forward` method's source, normalised through the AST ("" if there is none or it does not parse)."""
    try:
        tree = ast.parse(problem)
    except SyntaxError:
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "forward":
            return ast.dump(node)
    return ""


def family_rows(base: list[dict], family: str, n: int, seed: int, exclude: set[str],
                kernelbench: str | None = None) -> list[dict]:
    """Up to n fresh training rows of `family`, none the same problem or forward as a base row, none in `exclude`."""
    from training.data.generate import generate
    from training.data.novelty import NEAR_COPY, closest, find_kernelbench

    texts = {r["problem"] for r in base} | exclude
    held_fwd = {forward_source(r["problem"]) for r in base if r.get("split") != "train"} - {""}
    root = find_kernelbench(kernelbench)
    rows: list[dict] = []
    for s in generate(4 * n + 16, seed, families=(family,)):
        if len(rows) == n:
            break
        if s.problem in texts or forward_source(s.problem) in held_fwd or closest(s.problem, root)[0] >= NEAR_COPY:
            continue
        texts.add(s.problem)
        prefix, _, num = s.id.rpartition("-")
        rows.append({"pid": f"{prefix}-s{seed}-{num}", "family": s.family, "problem": s.problem,
                     "source": "generated", "split": "train"})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, type=Path, help="a prompt set whose held-out rows are kept")
    ap.add_argument("--family", required=True, help="a training.data.generate family, e.g. elementwise")
    ap.add_argument("--n", type=int, default=240, help="training problems wanted")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sft-data", nargs="*", default=["data/corpus.jsonl", "data/corpus_tiny.jsonl",
                                                      "data/corpus_single_ops.jsonl"], help="problems never used")
    ap.add_argument("--kernelbench", default=None, help="KernelBench root (default: found as training.rl finds it)")
    ap.add_argument("--out", required=True, type=Path)
    a = ap.parse_args(argv)
    from training.rl import sft_problems

    base = [json.loads(x) for x in a.base.read_text().splitlines() if x.strip()]
    held = [r for r in base if r.get("split") != "train"]
    rows = family_rows(base, a.family, a.n, a.seed, sft_problems([str(ROOT / p) for p in a.sft_data]), a.kernelbench)
    if not rows:
        print(f"family_prompts: no problems of family {a.family!r}", file=sys.stderr)
        return 2
    a.out.write_text("".join(json.dumps(r) + "\n" for r in held + rows))
    print(f"{len(rows)} training problems of {a.family} (seed {a.seed}) + {len(held)} held-out rows -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
