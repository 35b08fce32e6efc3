"""Is an RL update signal or optimizer noise? Token-level fit of three models on the same texts.

    python benchmarks/update_noise.py --init training/default_model --rl RL_FINAL [--n 64] [--seed 0] [--save-noise DIR]

Compares the starting checkpoint, an RL final, and the start plus a random perturbation with the RL update's
per-tensor mean absolute size (random signs): a token-level fit on SFT corpus responses the start was trained on
(data/corpus.jsonl; NLL per token, mean probability mass off the target token, share of tokens whose target has
p < 0.5). A sampled syntax error at T 1.0 is a draw from that off-target mass. If the random perturbation moves
these as much as the RL update does, the update's size is mostly noise (Adam gives every weight a step of about lr
whatever its gradient's signal), not learning. Also prints the update's relative size per tensor kind.
"""
from __future__ import annotations

import argparse
import json
import random
import time
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from machine import machine  # noqa: E402  (benchmarks/machine.py)


def load(path: str):
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()


@torch.no_grad()
def fit(model, batch: list[tuple[list[int], int]]) -> dict:
    """Token-level fit over the response tokens of (ids, prompt_len) pairs."""
    nll = off = low = n = 0.0
    for ids, p_len in batch:
        x = torch.tensor([ids])
        logp = torch.log_softmax(model(x).logits[0, :-1].float(), -1)
        tgt = x[0, 1:]
        lp = logp.gather(1, tgt[:, None])[:, 0][p_len - 1:]
        nll += -lp.sum().item()
        off += (1 - lp.exp()).sum().item()
        low += (lp.exp() < 0.5).sum().item()
        n += lp.numel()
    return {"nll/token": nll / n, "off-target mass/token": off / n, "tokens with p<0.5": low / n, "tokens": int(n)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--init", default="training/default_model")
    ap.add_argument("--rl", required=True)
    ap.add_argument("--corpus", default="data/corpus.jsonl")
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save-noise", metavar="DIR",
                    help="also save the start + random update as a checkpoint (with the start's tokenizer and "
                         "tritonrl.json), so `benchmarks/heldout_eval.py --model DIR` can ask whether the held-out "
                         "rate falls as much under a random update of the RL update's size")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    from transformers import AutoTokenizer

    from training import checkpoints, prompts

    tok = AutoTokenizer.from_pretrained(a.init)
    form = checkpoints.prompt_form(Path(a.init))
    rows = [json.loads(x) for x in Path(a.corpus).read_text().splitlines() if x.strip()]
    random.Random(a.seed).shuffle(rows)
    batch = []
    for r in rows[:a.n]:
        p = tok(prompts.render(prompts.build_messages(r["problem"], form), tok), add_special_tokens=False)["input_ids"]
        c = tok(r["response"], add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
        batch.append((p + c, len(p)))

    init, rl = load(a.init), load(a.rl)
    noisy = load(a.init)
    g = torch.Generator().manual_seed(a.seed)
    print("| tensor kind | mean abs weight | mean abs RL update | relative |\n|---|---|---|---|")
    kinds: dict[str, list[float]] = {}
    with torch.no_grad():
        for (name, w0), w1, wn in zip(init.named_parameters(), rl.parameters(), noisy.parameters()):
            d = (w1 - w0).abs().mean()
            sign = torch.randint(0, 2, w0.shape, generator=g).float() * 2 - 1
            wn.add_(sign * d)  # the RL update's size, random directions
            kind = name.split(".")[-2] if "layers" in name else name.rsplit(".", 1)[0]
            k = kinds.setdefault(kind, [0.0, 0.0, 0])
            k[0] += w0.abs().mean().item(); k[1] += d.item(); k[2] += 1
    if a.save_noise:
        import shutil

        noisy.save_pretrained(a.save_noise)
        tok.save_pretrained(a.save_noise)
        if (Path(a.init) / "tritonrl.json").exists():  # the prompt form the server and heldout_eval read
            shutil.copy(Path(a.init) / "tritonrl.json", Path(a.save_noise) / "tritonrl.json")
    for kind, (w, d, c) in kinds.items():
        print(f"| {kind} | {w / c:.4f} | {d / c:.2e} | {d / w:.2%} |")
    print()
    res = {"start": fit(init, batch), "RL final": fit(rl, batch), "start + random update of the RL size": fit(noisy, batch)}
    keys = list(res["start"])
    print("| model | " + " | ".join(keys) + " |\n|---|" + "---|" * len(keys))
    for m, r in res.items():
        print(f"| {m} | " + " | ".join(f"{r[k]:.4f}" if isinstance(r[k], float) else str(r[k]) for k in keys) + " |")
    print(f"\n{a.n} responses of {a.corpus} (seed {a.seed}); init {a.init}, RL {a.rl}. Machine: {machine()}; "
          f"{time.strftime('%Y-%m-%d')}; {time.monotonic() - t0:.0f} s.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
