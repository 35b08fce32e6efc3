"""Verify again, on this machine, the kernels a GPU RL run verified: the distinct codes of the rollouts it logged as
verified, a few per problem. Where this machine has no GPU the verifier runs them in Triton's interpreter, so this
measures how often a CPU verdict agrees with the GPU's on the model's own kernels, and whether a verifier change
(a new rule, a new variant) refuses kernels a GPU accepted.

    python benchmarks/reverify_rollouts.py benchmarks/results/rl_lr5e-5_h100_20261206/rl_hrd \\
        benchmarks/results/rl_lr5e-5_h100_20261206/rl_uniform --per-problem 3 --out FILE.md
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from machine import machine  # noqa: E402  (benchmarks/machine.py)
from rl_report import read_jsonl  # noqa: E402  (a run's logs, gzipped or not)


def main(argv: list[str] | None = None) -> int:
    from training.prompts import parse_response
    from verifier import verify_batch

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path, help="training.rl run directories (or their copies in results/)")
    ap.add_argument("--prompts", type=Path, default=ROOT / "benchmarks" / "rl_prompts_h200.jsonl",
                    help="the runs' prompt set (each run's own prompts.jsonl when it has one)")
    ap.add_argument("--per-problem", type=int, default=3)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)

    problems: dict[str, str] = {}
    codes: dict[str, set[str]] = collections.defaultdict(set)
    for run in args.runs:
        src = run / "prompts.jsonl" if (run / "prompts.jsonl").exists() else args.prompts
        problems.update({r["pid"]: r["problem"] for r in map(json.loads, src.read_text().splitlines())})
        rows = read_jsonl(run / "rollouts.jsonl")
        if not rows:
            raise SystemExit(f"no rollouts.jsonl[.gz] in {run}")
        for r in rows:
            if r.get("ok") and r.get("stage") == "done":
                codes[r["pid"]].add(parse_response(r["completion"]).code)
    t0 = time.monotonic()
    agree, refused, errors = 0, [], []
    for pid in sorted(codes):
        todo = sorted(codes[pid])[:args.per_problem]
        try:
            vs = verify_batch(problems[pid], todo, device=args.device)
        except Exception as e:  # the problem's reference fails here: named, not counted either way
            errors.append(f"{pid}: {type(e).__name__}: {str(e)[:200]}")
            continue
        for v in vs:
            if v.ok:
                agree += 1
            else:
                refused.append(f"{pid}: {v.stage} {','.join(v.rules)}: {v.reasons[0].message[:300]}")
    n = agree + len(refused)
    lines = [
        "# GPU-verified RL rollouts, verified again",
        "",
        "Command:",
        "",
        "    python benchmarks/reverify_rollouts.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "",
        f"Machine: {machine()}; {time.strftime('%Y-%m-%d')}; {time.monotonic() - t0:.0f} s.",
        "",
        f"Distinct kernels the GPU verified: {n} over {len(codes)} problems (at most {args.per_problem} each); "
        f"**verified again: {agree}/{n}**; refused: {len(refused)}; problems whose reference failed here: "
        f"{len(errors)}.",
        "",
    ]
    lines += [f"- refused: {x}" for x in refused] + [f"- reference failed: {x}" for x in errors]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
