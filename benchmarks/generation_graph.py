"""Sampling through transformers' `generate` against the fast decode path (`training/fast_decode.py`): eager
steps, and on CUDA one step captured in a CUDA graph and replayed.

    python benchmarks/generation_graph.py [--model CKPT] [--module examples/rms_norm.py::Model] [-n 4] [--seed 0]
                                          [--max-new-tokens 512 1024] [--device cpu|cuda] [--repeat 3]
                                          [--threads N] [--out FILE.md]

What the language server and `tritonrl suggest` do for one module: `TransformersBackend.generate`, `n` samples
of one prompt in one batch, seeded, temperature 0.8, top-p 0.95, the plan budget on. The path is chosen with
TRITONRL_FAST_DECODE (0: HF generate; eager; 1: graph on CUDA). The paths take turns for `repeat` rounds and
the fastest run of each is reported; the runs column shows all (a graph path's first call pays its capture).
Tokens/s counts the rows' new tokens (EOS included); ms/step divides by the longest row (the number of decode
steps; the prompt's prefill is included). "same as HF": whether the samples equal HF generate's: on the CPU
they must (the same per-row generator streams); on CUDA they differ (the fast path draws a chunk of noise at
a time, another Philox stream), only the distribution is the same.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(ROOT / "training" / "default_model"))
    ap.add_argument("--module", default="examples/rms_norm.py::Model")
    ap.add_argument("-n", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-new-tokens", type=int, nargs="+", default=[512, 1024])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, help="torch CPU threads (default: torch's); 1 keeps a shared CPU's "
                    "timings steadier (OpenMP threads spin when another process holds a core)")
    ap.add_argument("--out")
    a = ap.parse_args()

    import torch

    if a.threads:
        torch.set_num_threads(a.threads)

    from machine import machine
    from training import fast_decode, prompts
    from training.backends import GenerationConfig, TransformersBackend
    from training.extract import extract_problem

    path, cls = a.module.split("::")
    problem = extract_problem((ROOT / path).read_text(), cls)
    b = TransformersBackend(a.model, device=a.device)  # dtype auto: bf16 on CUDA, float32 on the CPU
    conv = prompts.build_messages(problem, b.prompt_form)
    prompt_tokens = len(b.tokenizer(prompts.render(conv, b.tokenizer), add_special_tokens=False).input_ids)
    why = fast_decode.unsupported_reason(b.model)
    paths = [("HF generate", "0"), ("fast, eager", "eager")]
    if a.device == "cuda":
        paths.append(("fast, CUDA graph", "1"))
    lines = ["| path | max new tokens | s (fastest of runs) | runs s | new tokens (per sample) | tokens/s "
             "| ms/step (prefill incl.) | same as HF |", "|---|---|---|---|---|---|---|---|"]
    old = os.environ.get(fast_decode.ENV)
    load0 = " ".join(f"{x:.1f}" for x in os.getloadavg())

    def once(env: str, m: int):
        os.environ[fast_decode.ENV] = env
        cfg = GenerationConfig(n=a.n, max_new_tokens=m, seed=a.seed)
        if a.device == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = b.generate([conv], cfg)[0]
        if a.device == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - t0, out

    try:
        for m in a.max_new_tokens:
            fast_decode.clear()  # a graph path's first run captures
            runs: dict[str, list[float]] = {env: [] for _, env in paths}
            outs = {}
            for _ in range(a.repeat):  # the paths take turns, so a busy machine slows each alike
                for _, env in paths:
                    dt, outs[env] = once(env, m)
                    runs[env].append(dt)
            for name, env in paths:
                out = outs[env]
                texts = [c.text for c in out]
                toks = [c.tokens + (0 if c.truncated else 1) for c in out]  # + EOS for rows that ended
                same = "-" if env == "0" else str(texts == [c.text for c in outs["0"]])
                best = min(runs[env])
                lines.append(f"| {name} | {m} | {best:.2f} | {', '.join(f'{r:.2f}' for r in runs[env])} | "
                             f"{sum(toks)} ({', '.join(map(str, toks))}) | {sum(toks) / best:.0f} | "
                             f"{1e3 * best / max(toks):.1f} | {same} |")
                print(lines[-1], flush=True)
    finally:
        if old is None:
            os.environ.pop(fast_decode.ENV, None)
        else:
            os.environ[fast_decode.ENV] = old
    cmd = "python benchmarks/generation_graph.py " + " ".join(sys.argv[1:])
    md = (f"# Sampling: transformers generate vs the fast decode path\n\nCommand: `{cmd}`\n\nMachine: {machine()}, "
          f"{torch.get_num_threads()} torch threads; model {Path(a.model).name} ({b.model.dtype}), {a.module} "
          f"({prompt_tokens} prompt tokens), {a.n} samples in one batch, seed {a.seed}, temperature 0.8, top-p 0.95, "
          f"plan budget {prompts.PLAN_TOKEN_BUDGET}, fastest of {a.repeat} runs. Fast path: "
          f"{'applies' if why is None else 'does not apply (' + why + ')'}. Load average before/after: "
          f"{load0} / {' '.join(f'{x:.1f}' for x in os.getloadavg())} (other work on the machine slows every path). "
          f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.\n\n" + "\n".join(lines) + "\n")
    print(md)
    if a.out:
        Path(a.out).write_text(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
