"""Hierarchical Reward Decomposition (HRD): rewards from verdicts, group-normalised advantages, and
the per-token advantage layout that `training.rl`'s GRPO trainer hands to TRL.

    R_correct = valid · correct                 (a verified candidate: every verifier layer passed)
    R_speedup = valid · correct · speedup       (speedup over eager PyTorch, capped)

HRD: plan tokens (the `<think> … </think>` part) carry α · A(R_speedup), code tokens (the rest of the
completion: the fenced candidate, stray text, EOS) carry A(R_correct), where A is GRPO's
group-normalised advantage; prompt and padding tokens carry 0. The uniform baseline gives every
completion token A(β · R_correct + (1 − β) · R_speedup).

On a CPU verifier (the Triton interpreter) nothing is timed, so speedup is taken as 1: R_speedup
equals R_correct there, and the plan tokens get α times the correctness advantage.
"""
from __future__ import annotations

from typing import Any, Sequence

import torch

from . import prompts

NONE, PLAN, CODE = 0, 1, 2  # token roles

SPEEDUP_CAP = 10.0  # a timing above this is clipped: one lucky measurement must not dominate a group


def rewards(verdict: Any, speedup_cap: float = SPEEDUP_CAP) -> tuple[float, float]:
    """(R_correct, R_speedup) of one verdict (a verifier Verdict or its dict; None: never verified)."""
    if verdict is None:
        return 0.0, 0.0
    d = verdict if isinstance(verdict, dict) else verdict.to_dict()
    correct = 1.0 if d.get("ok") else 0.0
    speedup = d.get("speedup")
    speedup = 1.0 if speedup is None else max(0.0, min(float(speedup), speedup_cap))
    return correct, correct * speedup


def group_advantages(r: torch.Tensor, group: int, scale: str = "group") -> torch.Tensor:
    """GRPO advantages of rewards `r` (N,), N = groups × `group` consecutive completions of one prompt.

    `scale`: "group" divides by each group's std, "batch" by the whole batch's, "none" not at all.
    NaN rewards (unscorable) are left out of the statistics and get advantage 0."""
    g = r.view(-1, group)
    valid = ~torch.isnan(g)
    n = valid.sum(1, keepdim=True).clamp(min=1)
    filled = torch.where(valid, g, torch.zeros_like(g))
    mean = filled.sum(1, keepdim=True) / n
    adv = torch.where(valid, g - mean, torch.zeros_like(g))
    if scale == "group":
        std = torch.sqrt((adv ** 2).sum(1, keepdim=True) / (n - 1).clamp(min=1))
        adv = adv / (std + 1e-4)
    elif scale == "batch":
        flat = r[~torch.isnan(r)]
        std = flat.std() if flat.numel() > 1 else torch.zeros((), dtype=r.dtype, device=r.device)
        adv = adv / (std + 1e-4)
    elif scale != "none":
        raise ValueError(f"scale must be group, batch or none, not {scale!r}")
    return torch.nan_to_num(adv.reshape(-1), nan=0.0)


def completion_offsets(ids: Sequence[int], tokenizer: Any) -> tuple[str, list[tuple[int, int]]]:
    """The text of generated token ids and each token's (start, end) character offsets in it.

    Re-tokenising the decoded text gives the offsets when it reproduces the same ids (the usual
    case); otherwise each token's end is the length of the decoded prefix up to it."""
    ids = list(ids)
    text = tokenizer.decode(ids, skip_special_tokens=True)
    try:
        enc = tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
        special = set(getattr(tokenizer, "all_special_ids", []) or [])
        visible = [i for i in ids if i not in special]
        if list(enc["input_ids"]) == visible:
            it = iter(enc["offset_mapping"])
            return text, [(len(text), len(text)) if i in special else tuple(next(it)) for i in ids]
    except (TypeError, ValueError, NotImplementedError):  # slow tokenizers have no offsets
        pass
    offsets, prev = [], 0
    for k in range(len(ids)):
        end = len(tokenizer.decode(ids[:k + 1], skip_special_tokens=True))
        offsets.append((prev, max(prev, end)))
        prev = max(prev, end)
    return text, offsets


def token_roles(text: str, offsets: Sequence[tuple[int, int]]) -> list[int]:
    """PLAN for tokens that start before the end of the response's `</think>`, CODE for the rest."""
    cut = prompts.plan_end(text)
    return [PLAN if start < cut else CODE for start, _ in offsets]


def roles_tensor(completion_ids: torch.Tensor, completion_mask: torch.Tensor, tokenizer: Any) -> torch.Tensor:
    """(B, T) roles of a right-padded batch of completions (NONE where the mask is 0)."""
    roles = torch.zeros_like(completion_ids)
    for b in range(completion_ids.size(0)):
        n = int(completion_mask[b].sum())
        if n == 0:
            continue
        ids = completion_ids[b, :n].tolist()
        text, offsets = completion_offsets(ids, tokenizer)
        roles[b, :n] = torch.tensor(token_roles(text, offsets), dtype=roles.dtype)
    return roles * completion_mask.to(roles.dtype)


def hrd_advantages(roles: torch.Tensor, a_plan: torch.Tensor, a_code: torch.Tensor,
                   alpha: float = 0.1) -> torch.Tensor:
    """Per-token advantages (B, T): α·a_plan on PLAN tokens, a_code on CODE tokens, 0 elsewhere."""
    plan = (roles == PLAN).to(a_plan.dtype)
    code = (roles == CODE).to(a_code.dtype)
    return alpha * a_plan[:, None] * plan + a_code[:, None] * code


def scale_negative(adv: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
    """Per-token advantages with the negative ones multiplied by `scale` (1.0: unchanged).

    Why < 1: each GRPO step at lr 5e-5 and above pushed the shipped policy's sampled tail up (held-out syntax
    errors and undefined names 7 -> 24 of 128 in 16 steps, benchmarks/results/rl_lr5e-5_h100_20261206): a wrong
    sample's negative gradient lowers its tokens and hands their mass to every other token, garbage included,
    while a right sample's positive gradient sharpens. Weighting the negatives less is a lower baseline
    (asymmetric REINFORCE); the groups' ranking of their completions is unchanged."""
    if scale == 1.0:
        return adv
    return torch.where(adv < 0, adv * scale, adv)


def uniform_advantages(roles: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """Per-token advantages (B, T): the same `a` on every completion token, 0 on padding."""
    return a[:, None] * (roles != NONE).to(a.dtype)
