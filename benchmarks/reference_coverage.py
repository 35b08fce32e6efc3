"""Does the verifier's reference side run every KernelBench problem? A table per problem.

    python benchmarks/reference_coverage.py --problems ../shared/kernelbench --level level3 [--only STEMS]
        [--device auto|cpu|cuda] [--jobs 2] [--out FILE.md]

For each problem file: `prepare_reference` in its sandbox, as the first step of every verification (size
plan, fresh inputs for every trial, the reference's outputs; no candidate, no timing). A problem that
fails here gets no verdict for any candidate, so this is the verifier's reach over modules it has never
seen: whole networks (level 3) as well as single ops. Reports the shapes it ran at (shrunk on a CPU) or
the error, and the seconds it took.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier import VerifyConfig  # noqa: E402
from verifier.problem import ProblemError  # noqa: E402
from verifier.runner import prepare_reference  # noqa: E402


def run_one(path: Path, cfg: VerifyConfig) -> dict:
    t0 = time.monotonic()
    try:
        ref = prepare_reference(path.read_text(), cfg)
    except ProblemError as e:
        return {"problem": path.stem, "ok": False, "s": time.monotonic() - t0, "why": str(e).splitlines()[0][:300]}
    except Exception as e:  # noqa: BLE001  (a verifier bug: reported as such, the run goes on)
        return {"problem": path.stem, "ok": False, "s": time.monotonic() - t0,
                "why": f"verifier error {type(e).__name__}: {str(e)[:300]}"}
    try:
        base = ref.shapes[0] if ref.shapes else {}
        other = [f"{x['label']} at {x['inputs']} ({x['sizes']})" for x in ref.shapes if x.get("sizes")]
        other += [f"{x['label']} skipped" for x in ref.skipped]
        return {"problem": path.stem, "ok": True, "s": time.monotonic() - t0, "trials": len(ref.shapes),
                "base": base.get("inputs"), "constants": base.get("constants"), "other": "; ".join(other)}
    finally:
        ref.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", required=True, help="KernelBench root (holds level1/, level2/, level3/)")
    ap.add_argument("--level", action="append", required=True)
    ap.add_argument("--only", help="comma-separated file stems or problem numbers (3,34 or 3_ConvTranspose3d_...)")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out")
    a = ap.parse_args()
    cfg = VerifyConfig(device=a.device).resolved()
    files = sorted((p for lvl in a.level for p in (Path(a.problems) / lvl).glob("*.py")),
                   key=lambda p: (p.parent.name, int(p.stem.split("_")[0]) if p.stem.split("_")[0].isdigit() else 0))
    if a.only:
        keep = set(a.only.split(","))
        files = [p for p in files if p.stem in keep or p.stem.split("_")[0] in keep]
    t0 = time.monotonic()
    with ThreadPoolExecutor(a.jobs) as ex:
        rows = []
        for r in ex.map(lambda p: run_one(p, cfg), files):
            rows.append(r)
            print(f"{r['problem']}: {'ok' if r['ok'] else 'FAILED ' + r['why']} ({r['s']:.1f} s)", file=sys.stderr,
                  flush=True)
    ok = sum(r["ok"] for r in rows)
    lines = [f"# Reference runs on KernelBench {', '.join(a.level)} ({cfg.device})", "", "Command:", "",
             f"    python benchmarks/reference_coverage.py --problems KERNELBENCH {' '.join('--level ' + x for x in a.level)}"
             f" --device {cfg.device} --jobs {a.jobs}" + (f" --only {a.only}" if a.only else ""), "",
             f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}. "
             f"Measured {time.strftime('%Y-%m-%d')}, wall time {time.monotonic() - t0:.0f} s.", "",
             f"**{ok} of {len(rows)} problems ran** (size plan, inputs, reference outputs for every trial).", "",
             "trials: shape variants checked (base, odd1, odd2, ordered); other: odd variants run at other sizes "
             "because the reference itself fails at the odd ones, or skipped (the reference runs at none tried).", "",
             "| problem | ran | s | trials | base inputs (or why not) | other |", "|---|---|---|---|---|---|"]
    for r in rows:
        what = str(r["base"]) if r["ok"] else r["why"].replace("|", "\\|")
        lines.append(f"| {r['problem']} | {'yes' if r['ok'] else '**no**'} | {r['s']:.1f} | {r.get('trials', '-')} | "
                     f"{what} | {r.get('other', '')} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        Path(a.out).write_text(text)
    return 0 if ok == len(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
