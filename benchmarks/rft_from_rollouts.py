"""Rejection-sampling fine-tuning data from an RL run's rollouts: the verified completions as SFT samples.

    python benchmarks/rft_from_rollouts.py --rollouts RUN/rollouts.jsonl[.gz] --prompts RUN/prompts.jsonl \
        --out rft.jsonl [--all-groups]

Keeps each training prompt's completions the verifier passed (`ok`), once per distinct text, from the groups (one
step's completions of one prompt) that also had a wrong one: the samples a positive-only GRPO step would push
(`--all-groups` also keeps groups that were all right). Held-out prompts are refused. The output is an SFT corpus
(`problem`, `response`, `family`, `pid`, `source`) for `python -m training.sft --model START --data rft.jsonl`.
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from rl_report import read_jsonl  # plain or .gz


def rft_samples(rollouts: list[dict], prompts: list[dict], all_groups: bool = False) -> list[dict]:
    """The SFT samples (see the module doc) of `rollouts` over the prompt rows `prompts`."""
    by_pid = {p["pid"]: p for p in prompts}
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rollouts:
        if r.get("mode", "train") == "train":
            groups[(r["step"], r["pid"])].append(r)
    out, seen = [], set()
    for (step, pid), rs in groups.items():
        right = [r for r in rs if r.get("ok") is True]
        if not right or (len(right) == len(rs) and not all_groups):
            continue
        p = by_pid.get(pid)
        if p is None:
            raise SystemExit(f"rft_from_rollouts: rollout prompt {pid} is not in the prompt file")
        if p.get("split") != "train":
            raise SystemExit(f"rft_from_rollouts: {pid} is a {p.get('split')} prompt: never train on it")
        for r in right:
            if (pid, r["completion"]) in seen:
                continue
            seen.add((pid, r["completion"]))
            out.append({"problem": p["problem"], "response": r["completion"], "family": p.get("family"), "pid": pid,
                        "source": f"rollouts step {step}"})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rollouts", required=True)
    ap.add_argument("--prompts", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--all-groups", action="store_true", help="also groups whose completions were all right")
    a = ap.parse_args(argv)
    rows = rft_samples(read_jsonl(a.rollouts), read_jsonl(a.prompts), a.all_groups)
    Path(a.out).write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"rft_from_rollouts: {len(rows)} samples of {len({r['pid'] for r in rows})} prompts -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
