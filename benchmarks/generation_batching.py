"""Generation time of the transformers backend: problems one at a time against all in one batched call.

    python benchmarks/generation_batching.py [--model CKPT] [-n 2] [--max-new-tokens 512] [--device auto] [--out FILE.md]

The problems are the five level-1-style modules of benchmarks/lsp_latency_modules/. `training.eval` with
`--jobs J` batches the generation of the J problems it has in flight (`BatchingGeneration`); this measures
what that buys on the machine it runs on. Same seed both ways, so both produce the same samples (checked).
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", help="checkpoint (default: the embedded default model)")
    ap.add_argument("-n", type=int, default=2)
    ap.add_argument("--max-new-tokens", type=int, default=512)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--out")
    a = ap.parse_args()

    import torch

    from training import prompts
    from training.backends import GenerationConfig, load_backend

    b = load_backend(a.model, "transformers", device=a.device)
    files = sorted((ROOT / "benchmarks" / "lsp_latency_modules").glob("*.py"))
    convs = [prompts.build_messages(f.read_text()) for f in files]
    cfg = GenerationConfig(n=a.n, temperature=0.8, top_p=0.95, max_new_tokens=a.max_new_tokens, seed=0)
    b.generate(convs[:1], GenerationConfig(n=1, max_new_tokens=4, seed=0))  # warm-up

    def timed(fn):
        t0 = time.perf_counter()
        r = fn()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        return r, time.perf_counter() - t0

    one, t_one = timed(lambda: [b.generate([c], cfg)[0] for c in convs])
    batch, t_batch = timed(lambda: b.generate(convs, cfg))
    same = [[c.text for c in cs] for cs in one] == [[c.text for c in cs] for cs in batch]
    toks = sum(c.tokens for cs in batch for c in cs)
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    lines = [
        "# Generation: one problem at a time against one batched call",
        "",
        "    python benchmarks/" + Path(__file__).name + " " + " ".join(sys.argv[1:]),
        "",
        f"Model {b.model_id}; {len(convs)} problems x n={a.n}, up to {a.max_new_tokens} new tokens, seed 0. "
        f"Machine: {platform.machine()}, {torch.get_num_threads()} torch threads, {gpu}, torch {torch.__version__}.",
        "",
        "| mode | seconds | generated tokens / s |",
        "|---|---|---|",
        f"| one problem per call ({len(convs)} calls) | {t_one:.1f} | {toks / t_one:.0f} |",
        f"| all problems in one call | {t_batch:.1f} | {toks / t_batch:.0f} |",
        "",
        f"Speed-up {t_one / t_batch:.2f}x; the same samples both ways: {same}; {toks} tokens in all.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        Path(a.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
