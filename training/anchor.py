"""An SFT anchor for GRPO: the policy's NLL on supervised (problem, response) samples, added to the RL loss.

Every GRPO run from the shipped SFT model so far lowered its held-out rate, with a growing tail of unparseable
samples; the RL update itself raised the policy's NLL on its SFT corpus (0.0055 -> 0.0078 per token in 17 steps,
benchmarks/results/rl_neg0.25_h100_20261206/update_noise_cpu.md). The KL term only holds the tokens the policy
sampled; this term (InstructGPT's "PPO-ptx") holds the supervised distribution itself while the rewards move it.

    loss = GRPO loss + coef * mean NLL of the completion tokens of `batch` SFT samples (prompt tokens masked)

or, with `anchor_kind` "kl", coef * the mean KL(policy || reference) over the whole vocabulary at those tokens. Why:
with the NLL anchor at coef 1.0 the SFT fit barely moved (0.0055 -> 0.0060 per token) and the held-out rate still
fell, its new failures being tokens the start gave almost no mass (`tl.maximum(v / 6.0 + tl.exp(v))` for
hardsigmoid, benchmarks/results/rl_anchor_cpu_20261207). The NLL of the right token hardly sees mass moving among
the wrong ones (p 0.999 -> 0.99 costs 0.009 nats), which sampling at T 1.0 does draw; the reverse KL charges each
token by its new mass, p log(p / p_ref): that 0.009 moved onto one token that had 2e-5 costs 0.046 nats.

The samples are read and rendered by `training.sft` (`read_samples`, `to_rows`) in the problem form the policy was
trained on, exactly as it trains on them, and drawn in a seeded order that cycles through them.
"""
from __future__ import annotations

import random

from . import prompts
from .sft import read_samples, to_rows


class AnchorBatches:
    """Tokenized SFT samples (prompt ids + completion ids, EOS ended), served `batch` at a time, padded."""

    def __init__(self, samples: list[dict], tokenizer, form: str = prompts.PROMPT_FORM, batch: int = 4,
                 max_len: int = 2048, seed: int = 0) -> None:
        if batch < 1:
            raise ValueError(f"anchor batch must be >= 1, got {batch}")
        self.batch, self.pad = batch, tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.rows: list[tuple[list[int], int]] = []  # (ids, number of prompt tokens)
        for r in to_rows(samples, tokenizer, form):  # training.sft's pairs: what the policy was trained on
            p = tokenizer(r["prompt"], add_special_tokens=False)["input_ids"]
            c = tokenizer(r["completion"], add_special_tokens=False)["input_ids"]
            if len(p) < max_len:  # a sample longer than max_len keeps its start: the plan and the kernel's head
                self.rows.append(((p + c)[:max_len], len(p)))
        if not self.rows:
            raise ValueError("no SFT anchor samples (empty files, or every prompt longer than max_len)")
        self.rng = random.Random(seed)
        self.order: list[int] = []

    @classmethod
    def from_files(cls, paths: list[str], tokenizer, **kw) -> "AnchorBatches":
        """From JSONL files of {"problem", "response"} rows (the SFT corpora's format), de-duplicated."""
        return cls(read_samples(paths), tokenizer, **kw)

    def next(self):
        """The next batch: (input_ids, attention_mask, labels) tensors, labels -100 on prompt and padding."""
        import torch

        take = []
        while len(take) < self.batch:
            if not self.order:  # a new pass, in a new seeded order
                self.order = list(range(len(self.rows)))
                self.rng.shuffle(self.order)
            take.append(self.rows[self.order.pop()])
        width = max(len(ids) for ids, _ in take)
        ids = torch.full((len(take), width), self.pad, dtype=torch.long)
        labels = torch.full((len(take), width), -100, dtype=torch.long)
        mask = torch.zeros((len(take), width), dtype=torch.long)
        for i, (row, n_prompt) in enumerate(take):
            ids[i, :len(row)] = torch.tensor(row)
            mask[i, :len(row)] = 1
            labels[i, n_prompt:len(row)] = torch.tensor(row[n_prompt:])
        return ids, mask, labels


def completion_nll(model, ids, mask, labels):
    """Mean next-token NLL over the labelled (completion) tokens: the supervised loss of `training.sft`."""
    import torch.nn.functional as F

    logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
    target = labels[:, 1:]
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1), ignore_index=-100)


def labelled_logp(logits, labels):
    """Log-softmax of the logits that predict the labelled (completion) tokens: (N, V), only those positions go
    through the softmax (not (B, T, V): a large vocabulary would not fit)."""
    return logits[:, :-1][labels[:, 1:] != -100].float().log_softmax(-1)


def completion_kl(model, ids, mask, labels, ref_logp):
    """Mean over the labelled (completion) tokens of KL(policy || reference), summed over the whole vocabulary: how
    far the policy's next-token distributions moved from the reference's on the SFT samples, tail included.
    `ref_logp`: `labelled_logp` of the reference model's logits on the same batch."""
    logp = labelled_logp(model(input_ids=ids, attention_mask=mask).logits, labels)
    return (logp.exp() * (logp - ref_logp)).sum(-1).mean()
