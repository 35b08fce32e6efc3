"""Batched sampling with the dynamic KV cache against a static (preallocated) one: same samples, time.

    python benchmarks/generation_cache.py [--model CKPT] [--rows 16] [--max-new-tokens 256 512] [--device auto]
                                          [--out FILE.md]

`training.sampling.sample_rows` (the held-out evaluation's and the transformers backend's sampler) on the first
`rows` prompts of the generated problem set, every row with its own seed, once per cache. Transformers'
dynamic cache concatenates every layer's keys and values at each decode step, so its copying grows with the
square of the length; the static cache writes in place. The table says whether both gave the same tokens.
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(Path(__file__).resolve().parents[1] / "training" / "default_model"))
    ap.add_argument("--rows", type=int, default=16)
    ap.add_argument("--max-new-tokens", type=int, nargs="+", default=[256, 512])
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--out")
    a = ap.parse_args()

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from training import prompts, sampling
    from training.data.generate import generate

    dev = ("cuda" if torch.cuda.is_available() else "cpu") if a.device == "auto" else a.device
    tok = AutoTokenizer.from_pretrained(a.model)
    model = AutoModelForCausalLM.from_pretrained(a.model, dtype=torch.float32).to(dev).eval()
    texts = [prompts.render(prompts.build_messages(s.problem), tok) for s in generate(a.rows, 7001)][:a.rows]
    seeds = list(range(a.rows))
    lines = ["| new tokens | dynamic cache s | static cache s | speedup | same samples | tokens generated |",
             "|---|---|---|---|---|---|"]
    for n in a.max_new_tokens:
        out, secs = {}, {}
        for cache in ("dynamic", "static"):
            sampling.CACHE = cache
            t0 = time.perf_counter()
            out[cache] = sampling.sample_rows(model, tok, texts, seeds, n, 1.0, chunk=a.rows)
            secs[cache] = time.perf_counter() - t0
        lines.append(f"| {n} | {secs['dynamic']:.1f} | {secs['static']:.1f} | {secs['dynamic'] / secs['static']:.2f}x | "
                     f"{out['dynamic'] == out['static']} | {sum(map(len, out['static']))} |")
        print(lines[-1], flush=True)
    sampling.CACHE = "static"
    mach = (f"{platform.machine()}, {torch.get_num_threads()} torch threads, "
            f"{torch.cuda.get_device_name(0) if dev == 'cuda' else 'CPU'}, torch {torch.__version__}")
    cmd = "python benchmarks/generation_cache.py " + " ".join(sys.argv[1:])
    md = (f"# Sampling with a dynamic vs a static KV cache\n\nCommand: `{cmd}`\n\nMachine: {mach}; "
          f"{a.rows} rows in one batch (temperature 1, one seed per row), model {Path(a.model).name}. "
          f"Measured {time.strftime('%Y-%m-%d')}.\n\n" + "\n".join(lines) + "\n")
    print(md)
    if a.out:
        Path(a.out).write_text(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
