"""Sampling with the model's weights in bfloat16 (as shipped) against float32: time, tokens, same samples.

    python benchmarks/generation_dtype.py [--model CKPT] [--module examples/rms_norm.py::Model] [-n 4] [--seed 0]
                                          [--max-new-tokens 2048] [--device cpu] [--repeat 2] [--out FILE.md]

What the language server and `tritonrl suggest` do for one module: `TransformersBackend.generate`, `n`
samples of one prompt in one batch, seeded. A CPU without native bfloat16 matrix units emulates bf16 matmuls,
so the backend loads a model in float32 on the CPU when asked for dtype "auto"; this table is why. The
fastest of `repeat` runs is reported (the first run of a process also pays one-time costs).
"""
from __future__ import annotations

import argparse
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
    ap.add_argument("--max-new-tokens", type=int, default=2048)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out")
    a = ap.parse_args()

    import torch

    from machine import machine
    from training import prompts
    from training.backends import GenerationConfig, TransformersBackend
    from training.extract import extract_problem

    path, cls = a.module.split("::")
    problem = extract_problem((ROOT / path).read_text(), cls)
    lines = ["| weights | s (fastest of runs) | runs s | new tokens (per sample) | same samples as bfloat16 |",
             "|---|---|---|---|---|"]
    texts: dict[str, list[str]] = {}
    for dtype in ("bfloat16", "float32"):
        b = TransformersBackend(a.model, device=a.device, dtype=getattr(torch, dtype))
        conv = prompts.build_messages(problem, b.prompt_form)
        cfg = GenerationConfig(n=a.n, max_new_tokens=a.max_new_tokens, seed=a.seed)
        runs = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            out = b.generate([conv], cfg)[0]
            runs.append(time.perf_counter() - t0)
        texts[dtype] = [c.text for c in out]
        toks = [len(b.tokenizer(t, add_special_tokens=False).input_ids) for t in texts[dtype]]
        same = "-" if dtype == "bfloat16" else str(texts[dtype] == texts["bfloat16"])
        lines.append(f"| {dtype} | {min(runs):.1f} | {', '.join(f'{r:.1f}' for r in runs)} | "
                     f"{sum(toks)} ({', '.join(map(str, toks))}) | {same} |")
        print(lines[-1], flush=True)
        del b
    cmd = "python benchmarks/generation_dtype.py " + " ".join(sys.argv[1:])
    md = (f"# Sampling in bfloat16 vs float32\n\nCommand: `{cmd}`\n\nMachine: {machine()}, {torch.get_num_threads()} "
          f"torch threads; model {Path(a.model).name}, {a.module}, {a.n} samples in one batch, seed {a.seed}, up to "
          f"{a.max_new_tokens} new tokens. Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.\n\n"
          + "\n".join(lines) + "\n")
    print(md)
    if a.out:
        Path(a.out).write_text(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
