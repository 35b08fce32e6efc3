"""What a candidate worker's warm-up saves the first candidate: its first forward, by warm-up.

    python benchmarks/warm_compile.py [--device auto|cuda|cpu] [--reps 2] [--out FILE.md]

Each measurement is a fresh Python process with an empty Triton cache (as every sandboxed worker has). It
warms up one of three ways, then runs one honest candidate from tests/corpus on its problem's inputs under
the candidate worker's op log (as every correctness trial does), and times the first forward call (Triton's
compile of the candidate's kernels and the launch) and the second:

* plain: imports, CUDA context, Triton's driver helpers (`warm_up(device, compile_kernel=False)`);
* kernel: that and the warm-up kernel compiled and run (`verifier/_warm_kernel.py`);
* worker: what a candidate worker does now: the warm-up kernel run through the launch recorder and the op log.

Not sandboxed: this measures Triton's and torch's one-time costs, not the sandbox (benchmarks/verify_latency.py).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
CANDIDATES = ["relu__helper_launcher", "row_softmax__one_program_per_row", "matmul__tiled_dot"]

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
from verifier._worker_util import load_module, warm_up
from verifier import worker_candidate as wc
device, mode, cand, prob = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
warm_up(device, compile_kernel=mode == "kernel")
if mode == "worker":
    wc._warm(device)
wc._install_launch_recorder()
t1 = time.perf_counter()
import torch
p = load_module(prob, "problem")
c = load_module(cand, "candidate")
torch.manual_seed(0)
model = c.ModelNew(*p.get_init_inputs()).to(device)
args = [x.to(device) if isinstance(x, torch.Tensor) else x for x in p.get_inputs()]
times = []
for _ in range(2):
    t = time.perf_counter()
    with torch.no_grad(), wc._OpLog():
        wc.S.active = True
        out = model(*args)
        wc.S.active = False
    if device == "cuda":
        torch.cuda.synchronize()
    times.append(time.perf_counter() - t)
print(json.dumps({"warm_up": t1 - t0, "first_forward": times[0], "second_forward": times[1]}))
"""
MODES = {"plain": "imports, context only", "kernel": "+ warm-up kernel", "worker": "+ kernel through the op log"}


def measure(device: str, mode: str, cand: str) -> dict:
    problem = CORPUS / "problems" / f"{cand.split('__')[0]}.py"
    with tempfile.TemporaryDirectory(prefix="tritonrl-warm-") as home:
        env = {**os.environ, "HOME": home, "TRITON_CACHE_DIR": f"{home}/.triton"}
        if device == "cpu":
            env["TRITON_INTERPRET"] = "1"
        out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), device, mode,
                              str(CORPUS / "honest" / f"{cand}.py"), str(problem)],
                             env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"{mode} {cand}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", help="also write the table here (markdown)")
    a = ap.parse_args()
    device = a.device
    if device == "auto":
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    rows = []
    for cand in CANDIDATES:
        for mode in MODES:
            ms = [measure(device, mode, cand) for _ in range(a.reps)]
            rows.append((cand, mode, *(statistics.median(m[k] for m in ms) for k in
                                       ("warm_up", "first_forward", "second_forward"))))
            print(rows[-1], file=sys.stderr, flush=True)
    lines = [f"# A candidate's first forward after a worker's warm-up, by warm-up ({device})",
             "", "Command:", "", f"    python benchmarks/warm_compile.py --device {device} --reps {a.reps}", "",
             f"Machine: {platform.node() and 'vm'}: {platform.machine()}, {os.cpu_count()} CPUs, Python "
             f"{platform.python_version()}. Measured {time.strftime('%Y-%m-%d')}. Medians of {a.reps} fresh "
             "processes, each with an empty Triton cache.", "",
             "| candidate | warm-up | warm-up s | first forward s | second forward s |", "|---|---|---|---|---|"]
    for cand, mode, w, f, s in rows:
        lines.append(f"| {cand} | {MODES[mode]} | {w:.2f} | "
                     f"{f:.3f} | {s:.4f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        Path(a.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
