"""Held-out evaluations of several checkpoints side by side, problem by problem, against the first (the start).

    python benchmarks/heldout_compare.py start=START.json rl=AFTER.json noise=NOISE.json [...] [--out table.md]

Each file is a `benchmarks/heldout_eval.py` result (or a run's heldout.jsonl row) on the same problems, seed and
sampler. Prints a markdown table: correct / samples, problems whose correct count rose or fell against the start,
the two-sided sign-test p of those moves (are ups and downs a coin's?), and each problem's correct count as one
digit per problem (the start's problem order). Several seeds of one checkpoint: pass `label=a.json,b.json` (the
problems are keyed per seed, so the same problem at two seeds counts as two). `--pids FILE` (one problem id a line)
keeps only those problems, `--pids FILE --invert` only the others: e.g. the training prompts an RL run saw against
those it did not reach, in one `--split train` evaluation.
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path


def load(paths: str) -> dict[str, list[str]]:
    """{problem key: [stage of each sample]} of one checkpoint, over one or more comma-separated result files."""
    out: dict[str, list[str]] = {}
    for i, p in enumerate(paths.split(",")):
        d = json.loads(Path(p).read_text().splitlines()[-1])
        seed = d.get("seed", i)
        for k, v in d["by_problem"].items():
            out[f"{k}@{seed}"] = list(v)
    return out


def sign_test(up: int, down: int) -> float:
    """Two-sided exact sign-test p of `up` against `down` moves (ties left out); 1.0 with no moves."""
    n = up + down
    if n == 0:
        return 1.0
    k = min(up, down)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def only(runs: list[tuple[str, dict[str, list[str]]]], pids: set[str], invert: bool = False):
    """`runs` with only the problems whose id (the key before its @seed) is in `pids` (not in it: `invert`)."""
    keep = lambda k: (k.rpartition("@")[0] in pids) != invert  # noqa: E731
    out = [(label, {k: v for k, v in r.items() if keep(k)}) for label, r in runs]
    if not out[0][1]:
        raise SystemExit("heldout_compare: no problem of the start is left by --pids")
    return out


def compare(runs: list[tuple[str, dict[str, list[str]]]]) -> str:
    """The markdown table of `runs` ((label, load(...)) pairs), the first one the start."""
    (_, base), keys = runs[0], list(runs[0][1])
    for label, r in runs[1:]:
        missing = [k for k in keys if k not in r]
        if missing:
            raise SystemExit(f"heldout_compare: {label} lacks {len(missing)} of the start's problems, e.g. {missing[:3]}")
    ok = lambda r, k: sum(x == "ok" for x in r[k])  # noqa: E731
    lines = ["| checkpoint | correct | rate | problems up / down vs the start | sign-test p | per problem |",
             "|---|---|---|---|---|---|"]
    for label, r in runs:
        c, n = sum(ok(r, k) for k in keys), sum(len(r[k]) for k in keys)
        up = sum(ok(r, k) > ok(base, k) for k in keys)
        down = sum(ok(r, k) < ok(base, k) for k in keys)
        moves = "" if r is base else f"{up} / {down}"
        p = "" if r is base else f"{sign_test(up, down):.3f}"
        digits = "".join(str(min(9, ok(r, k))) for k in keys)
        lines.append(f"| {label} | {c}/{n} | {c / n:.3f} | {moves} | {p} | `{digits}` |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", metavar="LABEL=FILE[,FILE...]", help="the first is the start")
    ap.add_argument("--out", help="also write the table here")
    ap.add_argument("--pids", help="only the problems whose ids this file lists, one a line")
    ap.add_argument("--invert", action="store_true", help="with --pids: only the problems it does not list")
    a = ap.parse_args(argv)
    runs = []
    for spec in a.runs:
        label, sep, paths = spec.partition("=")
        if not sep:
            ap.error(f"{spec!r}: expected LABEL=FILE")
        runs.append((label, load(paths)))
    if a.pids:
        runs = only(runs, {x.strip() for x in Path(a.pids).read_text().splitlines() if x.strip()}, a.invert)
    elif a.invert:
        ap.error("--invert needs --pids")
    table = compare(runs)
    print(table, end="")
    if a.out:
        Path(a.out).write_text(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
