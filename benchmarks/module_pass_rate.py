"""How often a model's candidates verify for a few hand-written modules (the user's case, not the corpus's).

    python benchmarks/module_pass_rate.py --model A [--model B ...] [-n 8] [--seed 0] [--device cpu] \
        [--modules examples/rms_norm.py benchmarks/lsp_latency_modules/*.py] [--out FILE.md]

One turn of `n` samples per module and model (the same seeds for every model), verified as `tritonrl suggest`
verifies them; prints a markdown table (verified/n per module, and the failing stages) and writes it to --out.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from training.backends import GenerationConfig, load_backend  # noqa: E402
from training.suggest import suggest  # noqa: E402
from verifier import VerifyConfig  # noqa: E402

from machine import machine  # noqa: E402  (benchmarks/machine.py)

DEFAULT_MODULES = [ROOT / "examples" / "rms_norm.py", *sorted((ROOT / "benchmarks" / "lsp_latency_modules").glob("*.py"))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", required=True, help="checkpoint directory (repeatable)")
    ap.add_argument("--modules", nargs="+", type=Path, default=DEFAULT_MODULES, help="files with a class Model")
    ap.add_argument("-n", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()

    rows, totals = [], Counter()
    t0 = time.time()
    for m in a.model:
        backend = load_backend(m, device=a.device)
        for f in a.modules:
            name = f.stem if f.parent.name != "examples" else f"examples/{f.stem}"
            t = time.time()
            res = suggest(f.read_text(), "Model", backend, n=a.n, turns=1,
                          gen=GenerationConfig(n=a.n, seed=a.seed), verify_cfg=VerifyConfig(device=a.device))
            ok = sum(c.verdict.ok for c in res.candidates)
            totals[m, "ok"] += ok
            totals[m, "n"] += len(res.candidates)
            stages = Counter(c.label for c in res.candidates if not c.verdict.ok)
            rows.append(f"| {m} | {name} | {ok}/{len(res.candidates)} | {time.time() - t:.0f} | "
                        + ", ".join(f"{k} x{v}" for k, v in stages.most_common()) + " |")
            print(rows[-1], flush=True)
    lines = [f"# Verified candidates per hand-written module ({a.device})", "",
             "Command:", "", "    python benchmarks/module_pass_rate.py " + " ".join(sys.argv[1:]), "",
             f"Machine: {machine()}. One turn, n={a.n}, seed {a.seed}, "
             f"{time.time() - t0:.0f} s in all.", "",
             "| model | module | verified | s | rejected candidates |", "|---|---|---|---|---|", *rows, ""]
    lines += [f"- {m}: {totals[m, 'ok']}/{totals[m, 'n']} verified" for m in a.model]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        a.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
