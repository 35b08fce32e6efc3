"""Verify the honest and cheating KernelBench level-1 candidates and print a results table.

    python benchmarks/verify_kernelbench.py [--level1 DIR] [--device auto|cuda|cpu] [--trials N] [--only IDS] [--pool] [--out DIR]

On the H200 this runs the problems at their real sizes; on CPU the verifier scales them down.
Candidates live in benchmarks/kernelbench_l1/{honest,cheats}; the problems are read from
KernelBench's level1 folder (never copied into this repository).
"""
from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from verifier import VerifyConfig, verify_batch  # noqa: E402


def expected(path: Path) -> str:
    m = re.match(r"#\s*expect:\s*(.+)", path.read_text().splitlines()[0])
    return m.group(1).strip() if m else "verified"


def fmt(x, spec=".3f"):
    return "—" if x is None else format(x, spec)


def write_report(rows: list, out: str | None, quiet: bool = False) -> int:
    """Print the table and (re)write it under `out`; called after every problem so partial runs count."""
    lines = ["| problem | candidate | expected | verdict | trials | time ms | eager ms | compile ms | "
             "speedup vs eager | vs compile | flags |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        v = r["verdict"]
        flags = ", ".join(f["rule"] for f in v["flags"]) or ""
        lines.append(f"| {r['problem']} | {r['candidate']} | {r['expected']} | {r['got']} | "
                     f"{v['trials']['passed']}/{v['trials']['run']} | {fmt(v['time_ms'])} | {fmt(v['ref_eager_ms'])} | "
                     f"{fmt(v['ref_compile_ms'])} | {fmt(v['speedup'], '.2f')} | {fmt(v['speedup_compile'], '.2f')} | "
                     f"{flags} |")
    ok = sum(r["as_expected"] for r in rows)
    lines.append("")
    lines.append(f"{ok}/{len(rows)} verdicts as expected; machine: {platform.node()} {_device_name()}")
    table = "\n".join(lines)
    if not quiet:
        print(table)
    if out:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "kernelbench_l1_results.md").write_text(table + "\n")
        (out / "kernelbench_l1_results.json").write_text(json.dumps(rows, indent=1, default=str))
    return ok


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--level1", default=str(HERE.parent.parent / "shared" / "kernelbench" / "level1"))
    ap.add_argument("--device", default="auto")
    ap.add_argument("--trials", type=int, default=None)
    ap.add_argument("--only", default="", help="comma-separated problem ids")
    ap.add_argument("--out", default=None)
    ap.add_argument("--pool", action="store_true", help="reuse warm sandboxed workers between problems")
    args = ap.parse_args()
    level1 = Path(args.level1)
    cands = HERE / "kernelbench_l1"
    only = {s for s in args.only.split(",") if s}
    rows = []
    for honest in sorted((cands / "honest").glob("*.py"), key=lambda p: int(p.name.split("_")[0])):
        pid = honest.name.split("_")[0]
        if only and pid not in only:
            continue
        problem = level1 / honest.name
        files = [honest] + sorted((cands / "cheats").glob(f"{honest.stem}__*.py"))
        t0 = time.monotonic()
        vs = verify_batch(problem.read_text(), [f.read_text() for f in files],
                          VerifyConfig(device=args.device, trials=args.trials, pool=args.pool))
        dt = time.monotonic() - t0
        for f, v in zip(files, vs):
            exp = expected(f)
            got = "verified" if v.ok else f"{v.stage} {v.reasons[0].rule}"
            right = (exp == "verified" and v.ok) or (exp != "verified" and not v.ok and any(
                f"{r.stage} {r.rule}" in exp for r in v.reasons))
            rows.append({"problem": honest.stem, "candidate": f.stem.split("__")[1] if "__" in f.stem else "honest",
                         "expected": exp, "got": got, "as_expected": right, "verdict": v.to_dict(),
                         "batch_s": round(dt, 2)})
            print(f"{honest.stem:45s} {rows[-1]['candidate']:22s} {got:35s} {'OK' if right else 'UNEXPECTED'}",
                  flush=True)
        if args.out:
            write_report(rows, args.out, quiet=True)
    ok = write_report(rows, args.out)
    return 0 if ok == len(rows) else 1


def _device_name() -> str:
    try:
        import torch

        return torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU (Triton interpreter)"
    except Exception:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
