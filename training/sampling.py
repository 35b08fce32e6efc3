"""Batched sampling where every row keeps its own random stream.

`RowSampler` is a logits processor that turns greedy decoding into sampling at a temperature, with an
optional top-p nucleus, row by row from each row's own generator (the Gumbel-max trick: argmax(logits/T +
Gumbel noise) is a sample of softmax(logits/T)). One batched `generate` then gives every row the tokens it
would get alone, whatever else is in the batch. So samples do not depend on how rows are grouped into batches
or split over ranks, and the caller's global RNG is left alone. `sample_rows` batches prompts through it
(left padding); the RL held-out evaluation and the transformers backend both use it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

from . import fast_decode, prompts


class RowSampler:
    """Logits processor: per-row Gumbel-max sampling at `temperature`, restricted to the top-p nucleus."""

    def __init__(self, seeds: list[int], temperature: float, device, top_p: float = 1.0):
        import torch

        self.t = max(float(temperature), 1e-6)
        self.top_p = float(top_p)
        self.gens = [torch.Generator(device=device).manual_seed(int(s)) for s in seeds]

    def __call__(self, input_ids, scores):
        import torch

        logits = scores.float() / self.t
        if self.top_p < 1.0:
            logits = top_p_filter(logits, self.top_p)
        noise = torch.stack([torch.rand(scores.shape[-1], generator=g, device=scores.device) for g in self.gens])
        return logits - gumbel(noise)


def top_p_filter(logits, top_p):
    """`logits` with the tail outside the smallest set whose probability reaches `top_p` set to -inf (`top_p` a
    float or a 0-dim tensor: the fast decode path's captured step reads it from a tensor)."""
    import torch

    sorted_logits, order = torch.sort(logits, descending=True, dim=-1)
    probs = torch.softmax(sorted_logits, dim=-1)
    drop_sorted = probs.cumsum(-1) - probs >= top_p  # the mass before a token; the first always stays
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
    return logits.masked_fill(drop, float("-inf"))


def gumbel(u):
    """log(-log(u)) of uniform noise `u`: `logits - gumbel(u)` has its argmax distributed as softmax(logits)."""
    import torch

    return torch.log(-torch.log(u.clamp(1e-10, 1 - 1e-7)))


CACHE = "static"  # the KV cache `sample_rows` generates with


class ClosePlan:
    """Logits processor ("budget forcing"): a row whose plan is still open once `budget` new tokens have passed
    is made to write `prompts.PLAN_CLOSE` next (the closing tag and the code fence), token by token, then samples
    on as before, so it writes its code after a cut plan instead of failing as unterminated-think. Checked every
    `every` steps past the budget; a row's decision depends on its own tokens only, so batching still changes no
    sample. Goes after `RowSampler` (it overrides whatever the sampler would pick)."""

    def __init__(self, tokenizer, prompt_len: int, budget: int, every: int = 32,
                 prompt_open: list[bool] | None = None):
        self.tok, self.prompt_len, self.budget, self.every = tokenizer, prompt_len, budget, every
        # rows whose prompt itself ends inside a plan (a chat template or a caller that pre-fills "<think>")
        self.lead = ["<think>" if o else "" for o in prompt_open] if prompt_open else None
        self.close = tokenizer(prompts.PLAN_CLOSE, add_special_tokens=False).input_ids
        self.forcing: dict[int, int] = {}  # row -> index into self.close of its next forced token

    def __call__(self, input_ids, scores):
        n = input_ids.shape[1] - self.prompt_len
        if n >= self.budget and (n - self.budget) % self.every == 0:
            texts = self.tok.batch_decode(input_ids[:, self.prompt_len:], skip_special_tokens=True)
            for i, t in enumerate(texts):
                if i not in self.forcing and prompts.plan_overran((self.lead[i] if self.lead else "") + t):
                    self.forcing[i] = 0
        if not self.forcing:
            return scores
        scores = scores.clone()
        for i, k in list(self.forcing.items()):
            scores[i] = float("-inf")
            scores[i, self.close[k]] = 0.0
            if k + 1 < len(self.close):
                self.forcing[i] = k + 1
            else:
                del self.forcing[i]
        return scores


def row_seed(seed: int, text: str, j: int) -> int:
    """A 63-bit seed for sample `j` of the prompt `text` under the run seed `seed`."""
    return int.from_bytes(hashlib.sha256(f"{seed}\0{j}\0{text}".encode()).digest()[:8], "big") >> 1


def sample_rows(model, tokenizer, prompt_texts: list[str], seeds: list[int], max_new_tokens: int,
                temperature: float, top_p: float = 1.0, chunk: int = 64,
                plan_budget: int | None = None) -> list[list[int]]:
    """One completion (token ids, up to and including EOS when it ended) per prompt, `chunk` rows per batched
    `generate` call (left padding), each row sampled from its own seed; greedy when temperature is 0.
    `plan_budget`: a row whose plan is still open after that many tokens is made to close it (`ClosePlan`);
    None: rows run to EOS or the limit as sampled."""
    import torch
    from transformers import LogitsProcessorList

    device = next(model.parameters()).device
    side, tokenizer.padding_side = tokenizer.padding_side, "left"
    eos, pad = tokenizer.eos_token_id, tokenizer.pad_token_id
    out: list[list[int]] = []
    try:
        for lo in range(0, len(prompt_texts), chunk):
            enc = tokenizer(prompt_texts[lo:lo + chunk], return_tensors="pt", padding=True,
                            add_special_tokens=False).to(device)

            def processors():  # fresh ones (own generators, no forcing state) for each path tried
                procs = [] if temperature <= 0 else [RowSampler(seeds[lo:lo + chunk], temperature, device, top_p)]
                if plan_budget:
                    procs.append(ClosePlan(tokenizer, enc["input_ids"].shape[1], plan_budget,
                                           prompt_open=[prompts.ends_in_plan(t) for t in prompt_texts[lo:lo + chunk]]))
                return procs

            # the hand-written decode loop (CUDA graphs on a GPU) when the model allows; None: HF generate
            new = fast_decode.generate(model, enc["input_ids"], enc["attention_mask"], processors(),
                                       max_new_tokens, pad) if fast_decode.enabled() else None
            if new is not None:
                rows = new.tolist()
            else:
                with torch.no_grad():
                    # a static cache: the default dynamic one concatenates every layer's keys and values at each
                    # step (quadratic copying; on CPU 3x slower at 256 new tokens, benchmarks/generation_cache.py).
                    # No auto-compile: on CUDA, transformers would torch.compile the forward with CUDA graphs for a
                    # static cache, which asserts when called from a worker thread (the LSP's and eval's case,
                    # seen on the H200) and recompiles for every new batch shape.
                    gen = model.generate(**enc, do_sample=False, max_new_tokens=max_new_tokens,
                                         logits_processor=LogitsProcessorList(processors()), pad_token_id=pad,
                                         top_k=None, top_p=None, temperature=None, cache_implementation=CACHE,
                                         disable_compile=True)
                rows = gen[:, enc["input_ids"].shape[1]:].tolist()
            for row in rows:
                if eos in row:
                    row = row[:row.index(eos) + 1]
                out.append([t for t in row if t != pad or t == eos])
    finally:
        tokenizer.padding_side = side
    return out


@dataclass
class Piece:
    """What one sampling request returned: its new token ids, and whether it stopped by itself (end of
    sequence, a stop string) rather than at its token limit."""

    ids: list[int]
    ended: bool


# one request: (prompt token ids, most new tokens, row index, pass: 0 first, 1 continuation)
Request = tuple[list[int], int, int, int]


def sample_with_plan_budget(sample: Callable[[list[Request]], list[Piece]], prompt_ids: list[list[int]],
                            opens_in_plan: list[bool], tokenizer, max_new_tokens: int,
                            budget: int = prompts.PLAN_TOKEN_BUDGET) -> list[Piece]:
    """`ClosePlan` for engines without a per-step logits hook (vLLM's `LLM.generate`), in two passes: every row
    samples `budget` tokens; a row whose plan is still open then gets `prompts.PLAN_CLOSE` appended (as
    tokens), and every row that neither ended nor reached `max_new_tokens` samples on from there. This is
    ClosePlan's first check (a plan opened only after the budget is not cut). `sample(requests)` returns one
    Piece per request; `opens_in_plan[i]`: row i's prompt ends inside a plan (`prompts.ends_in_plan`)."""
    close = tokenizer(prompts.PLAN_CLOSE, add_special_tokens=False).input_ids
    first = sample([(p, min(budget, max_new_tokens), i, 0) for i, p in enumerate(prompt_ids)])
    out: list[Piece] = []
    again: list[int] = []
    for i, piece in enumerate(first):
        ids = list(piece.ids)
        if not piece.ended and len(ids) < max_new_tokens:
            text = tokenizer.decode(ids, skip_special_tokens=True)
            if prompts.plan_overran(("<think>" if opens_in_plan[i] else "") + text):
                ids += close[:max_new_tokens - len(ids)]
            if len(ids) < max_new_tokens:
                again.append(i)
        out.append(Piece(ids, piece.ended))
    if again:
        rest = sample([(prompt_ids[i] + out[i].ids, max_new_tokens - len(out[i].ids), i, 1) for i in again])
        for i, piece in zip(again, rest):
            out[i] = Piece(out[i].ids + list(piece.ids), piece.ended)
    return out
