"""Batched generation: every sample keeps its own random stream, so batching changes nothing but speed."""
from __future__ import annotations

import threading

import pytest

from training import prompts
from training.backends import GenerationConfig, TransformersBackend
from training.eval import BatchingGeneration


def _convs() -> list:
    src = "import torch\n\nclass Model(torch.nn.Module):\n    pass  # {}\n"
    return [prompts.build_messages(src.format(i)) for i in range(3)]


def test_row_sampler_top_p_keeps_only_the_nucleus():
    import torch

    from training.sampling import RowSampler

    logits = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))
    proc = RowSampler([5], 1.0, "cpu", top_p=0.7)  # nucleus: 0.5 + 0.3 reaches 0.7
    picks = torch.tensor([int(proc(None, logits).argmax()) for _ in range(4000)])
    freq = torch.bincount(picks, minlength=4).float() / len(picks)
    assert freq[2] == 0 and freq[3] == 0
    assert abs(float(freq[0]) - 0.5 / 0.8) < 0.03, freq


def test_a_batch_of_conversations_samples_what_each_would_alone(tiny_ckpt):
    b = TransformersBackend(str(tiny_ckpt), device="cpu", dtype="float32")
    cfg = GenerationConfig(n=2, temperature=1.0, top_p=0.95, max_new_tokens=12, seed=3)
    together = b.generate(_convs(), cfg)
    alone = [b.generate([c], cfg)[0] for c in _convs()]
    assert [[c.text for c in cs] for cs in together] == [[c.text for c in cs] for cs in alone]
    assert all(len(cs) == 2 and all(c.tokens <= 12 for c in cs) for cs in together)
    # the seed decides: another seed gives other samples
    other = b.generate(_convs()[:1], GenerationConfig(**{**vars(cfg), "seed": 4}))[0]
    assert [c.text for c in other] != [c.text for c in alone[0]]


class _Counting:
    """The real backend, counting its calls and the conversations in each."""

    def __init__(self, backend, fail: bool = False):
        self.backend, self.model_id, self.sizes, self.fail = backend, backend.model_id, [], fail
        self.entered = threading.Event()
        self.release = threading.Event()

    def generate(self, conversations, cfg):
        self.sizes.append(len(conversations))
        self.entered.set()
        self.release.wait(30)
        if self.fail:
            raise RuntimeError("out of memory")
        return self.backend.generate(conversations, cfg)


def _run_threads(batcher, convs, cfg):
    out, errs = [None] * len(convs), [None] * len(convs)

    def one(i):
        try:
            out[i] = batcher.generate([convs[i]], cfg)[0]
        except Exception as e:
            errs[i] = e

    ts = [threading.Thread(target=one, args=(i,)) for i in range(len(convs))]
    ts[0].start()
    return ts, out, errs


def test_concurrent_problems_are_generated_in_one_batch_with_their_own_answers(tiny_ckpt):
    real = TransformersBackend(str(tiny_ckpt), device="cpu", dtype="float32")
    cfg = GenerationConfig(n=2, temperature=1.0, top_p=0.95, max_new_tokens=8, seed=1)
    counting = _Counting(real)
    batcher = BatchingGeneration(counting, gather_s=0.0)
    convs = _convs()
    ts, out, errs = _run_threads(batcher, convs, cfg)
    assert counting.entered.wait(30)  # the first call runs; the other two arrive while it does
    for t in ts[1:]:
        t.start()
    while len(batcher._queue) < 2:
        threading.Event().wait(0.01)
    counting.release.set()
    for t in ts:
        t.join(60)
    assert errs == [None] * 3 and counting.sizes == [1, 2]
    alone = [real.generate([c], cfg)[0] for c in convs]
    assert [[c.text for c in cs] for cs in out] == [[c.text for c in cs] for cs in alone]


def test_a_failing_batch_fails_every_problem_in_it_and_nobody_waits_forever(tiny_ckpt):
    real = TransformersBackend(str(tiny_ckpt), device="cpu", dtype="float32")
    counting = _Counting(real, fail=True)
    batcher = BatchingGeneration(counting, gather_s=0.0)
    ts, out, errs = _run_threads(batcher, _convs(), GenerationConfig(n=1, max_new_tokens=4, seed=0))
    assert counting.entered.wait(30)
    for t in ts[1:]:
        t.start()
    counting.release.set()
    for t in ts:
        t.join(60)
    assert not any(t.is_alive() for t in ts)
    assert all(isinstance(e, RuntimeError) and "out of memory" in str(e) for e in errs), errs
    with pytest.raises(RuntimeError):
        batcher.generate(_convs()[:1], GenerationConfig(n=1, max_new_tokens=4, seed=0))


def test_close_plan_forces_the_closing_tag_only_on_rows_whose_plan_is_still_open(tiny_ckpt):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from training.sampling import ClosePlan, sample_rows

    tok = AutoTokenizer.from_pretrained(tiny_ckpt)
    close = tok(prompts.PLAN_CLOSE, add_special_tokens=False).input_ids
    assert len(close) > 1 and tok.decode(close) == prompts.PLAN_CLOSE
    prompt = tok("prompt:", add_special_tokens=False).input_ids
    texts = ["<think> a plan that goes on and on and on", "<think> short </think> code", "no plan at all here"]
    rows = [tok(t, add_special_tokens=False).input_ids for t in texts]
    width = min(len(r) for r in rows)
    ids = torch.tensor([prompt + r[:width] for r in rows])
    vocab = len(tok)
    proc = ClosePlan(tok, len(prompt), budget=width, every=4)
    for k, want in enumerate(close):  # the first row is made to write PLAN_CLOSE, token by token; the others not
        scores = proc(ids, torch.zeros(3, vocab))
        assert int(scores[0].argmax()) == want and torch.isinf(scores[0]).sum() == vocab - 1
        assert not torch.isinf(scores[1:]).any()
        ids = torch.cat([ids, torch.tensor([[want], [0], [0]])], dim=1)  # off-beat from here on: no new checks
    assert not torch.isinf(proc(ids, torch.zeros(3, vocab))).any()  # then it samples freely again
    assert not torch.isinf(ClosePlan(tok, len(prompt), budget=width + 1)(ids[:, :len(prompt) + width],
                                                                         torch.zeros(3, vocab))).any()

    # in generate: a row is either what it would be without the budget (its plan was closed or never opened
    # at the budget) or its first 8 tokens, then PLAN_CLOSE; other rows are untouched
    model = AutoModelForCausalLM.from_pretrained(tiny_ckpt).eval()
    prompts_ = ["<think>", "<think> x", "class Model"] * 2
    seeds = list(range(len(prompts_)))
    free = sample_rows(model, tok, prompts_, seeds, max_new_tokens=40, temperature=1.5)
    closed = sample_rows(model, tok, prompts_, seeds, max_new_tokens=40, temperature=1.5, plan_budget=8)
    # "<think>" prompts end inside a plan (as a chat template that pre-fills it would): it counts as the row's
    lead = ["<think>" if prompts.ends_in_plan(p) else "" for p in prompts_]
    assert lead.count("<think>") == 4
    open_at_8 = [len(f) > 8 and prompts.plan_overran(ld + tok.decode(f[:8], skip_special_tokens=True))
                 for ld, f in zip(lead, free)]
    assert any(open_at_8), "no row ran past the budget with its plan open: the test exercises nothing"
    for f, c, cut in zip(free, closed, open_at_8):
        if cut:
            assert c[:8 + len(close)] == f[:8] + close
            assert not prompts.plan_overran("<think>" + tok.decode(c, skip_special_tokens=True))
        else:
            assert c == f


def test_plan_budget_in_two_passes_closes_only_open_plans(tiny_ckpt):
    """The vLLM backend's budget forcing (vLLM has no per-step hook), run here with a real model as the engine:
    a row whose plan is open after `budget` tokens continues from PLAN_CLOSE; a row without an open plan
    continues from exactly where it stopped; nothing runs past max_new_tokens, and ended rows stay ended."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from training.sampling import Piece, sample_with_plan_budget

    tok = AutoTokenizer.from_pretrained(tiny_ckpt)
    model = AutoModelForCausalLM.from_pretrained(tiny_ckpt).eval()
    eos = tok.eos_token_id
    calls = []

    def sample(requests):  # greedy, one request at a time: the engine
        calls.append(requests)
        out = []
        for ids, m, _, _ in requests:
            with torch.no_grad():
                gen = model.generate(torch.tensor([ids]), do_sample=False, max_new_tokens=m, pad_token_id=eos)
            new = gen[0, len(ids):].tolist()
            ended = eos in new
            out.append(Piece(new[:new.index(eos) + 1] if ended else new, ended))
        return out

    texts = ["prompt <think>", "prompt", "prompt <think> x"]
    ids = [tok(t, add_special_tokens=False).input_ids for t in texts]
    # the untrained model never writes </think>: rows 0 and 2 (prompts ending in a plan) stay open
    pieces = sample_with_plan_budget(sample, ids, [prompts.ends_in_plan(t) for t in texts], tok,
                                     max_new_tokens=24, budget=6)
    close = tok(prompts.PLAN_CLOSE, add_special_tokens=False).input_ids
    first = [sample([(p, 6, i, 0)])[0] for i, p in enumerate(ids)]  # what the first pass wrote (greedy: same)
    assert not first[0].ended and not first[1].ended  # (so both branches below are exercised)
    for i, (piece, f) in enumerate(zip(pieces, first)):
        assert len(piece.ids) <= 24 and piece.ids[:len(f.ids)] == f.ids
        if f.ended:
            assert piece.ids == f.ids
            continue
        rest = piece.ids[len(f.ids):]
        if i in (0, 2):
            assert rest[:len(close)] == close, tok.decode(rest)
        else:
            assert rest[:len(close)] != close
    assert [r[3] for r in calls[0]] == [0, 0, 0] and all(r[3] == 1 for r in calls[1])
    # a row that reaches max_new_tokens in the first pass is not continued
    short = sample_with_plan_budget(sample, ids[:1], [True], tok, max_new_tokens=4, budget=6)
    assert len(short[0].ids) <= 4
