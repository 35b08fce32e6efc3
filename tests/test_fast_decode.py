"""The fast decode path (`training.fast_decode`) against transformers' `generate`, on the embedded default model.

On the CPU the fast path runs eagerly and draws each row's noise from the same generator stream as
`RowSampler`, so at any temperature it must give what the HF path gives. The CUDA graph is checked by the
GPU-marked test at the end (skipped without a GPU)."""
from __future__ import annotations

import json
import logging

import pytest

from conftest import ROOT
from training import fast_decode, prompts
from training.sampling import sample_rows

TOKENS = 24


@pytest.fixture(scope="module")
def lm():
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from training import default_model

    path = default_model.path()
    if path is None:
        pytest.skip("no embedded default model")
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()  # what the backend loads on CPU
    return model, tok


def _corpus_row() -> dict:
    rows = [json.loads(x) for x in (ROOT / "data" / "corpus_tiny.jsonl").read_text().splitlines()]
    return next(r for r in rows if r["id"] == "ew-00012")


@pytest.fixture(scope="module")
def texts(lm):
    """Prompts as `TransformersBackend.generate` renders them: examples/rms_norm.py's module, a corpus problem."""
    from training.checkpoints import prompt_form
    from training.default_model import path
    from training.extract import extract_problem

    _, tok = lm
    form = prompt_form(path())
    rms = extract_problem((ROOT / "examples" / "rms_norm.py").read_text(), "Model")
    return {"rms": prompts.render(prompts.build_messages(rms, form), tok),
            "corpus": prompts.render(prompts.build_messages(_corpus_row()["problem"], form), tok)}


@pytest.fixture
def spy(monkeypatch):
    """Counts sample_rows' batches that the fast path answered (not None)."""
    calls = {"fast": 0, "none": 0}
    real = fast_decode.generate

    def wrapped(*a, **k):
        out = real(*a, **k)
        calls["fast" if out is not None else "none"] += 1
        return out

    monkeypatch.setattr(fast_decode, "generate", wrapped)
    return calls


def _both(monkeypatch, *args, **kw):
    """sample_rows through transformers' generate, then through the fast path."""
    monkeypatch.setenv(fast_decode.ENV, "0")
    hf = sample_rows(*args, **kw)
    monkeypatch.setenv(fast_decode.ENV, "1")
    return hf, sample_rows(*args, **kw)


def test_step_logits_match_the_hf_forward(lm, texts):
    """Prefill and every decode step (left padding included) against one HF forward over the whole sequence."""
    import torch

    model, tok = lm
    tok.padding_side = "left"
    enc = tok([texts["rms"], texts["corpus"]], return_tensors="pt", padding=True, add_special_tokens=False)
    ids, am = enc["input_ids"], enc["attention_mask"]
    assert (am == 0).any(), "the rows should differ in length (left padding exercised)"
    B, P = ids.shape
    n = 6
    r = fast_decode.Runner(model, B, P + n, sample=False, nucleus=False, stop_ids=[-5], pad=tok.pad_token_id,
                           use_graph=False)
    r.record = []
    with torch.no_grad():
        new = r.run(ids, am, n, None, None)
        full = torch.cat([ids, new], 1)
        fam = torch.cat([am, torch.ones_like(new)], 1)
        pos = (fam.cumsum(-1) - 1).clamp(min=0)
        ref = model(input_ids=full, attention_mask=fam, position_ids=pos).logits.float()
    assert len(r.record) == n
    for j, got in enumerate(r.record):
        want = ref[:, P - 1 + j]
        assert torch.allclose(got, want, atol=2e-4, rtol=1e-4), (j, float((got - want).abs().max()))
        assert torch.equal(got.argmax(-1), new[:, j])


def test_greedy_tokens_match_hf_generate(lm, texts, monkeypatch, spy):
    model, tok = lm
    batch = [texts["rms"], texts["rms"], texts["corpus"]]
    hf, fast = _both(monkeypatch, model, tok, batch, [0, 1, 2], TOKENS, 0.0)
    assert spy == {"fast": 1, "none": 0}
    assert fast == hf
    assert fast[0] == fast[1] and all(len(r) == TOKENS for r in fast)


def test_sampling_with_top_p_matches_hf_on_cpu(lm, texts, monkeypatch, spy):
    """Same generator streams as RowSampler on the CPU: the same samples as the HF path."""
    model, tok = lm
    batch = [texts["rms"]] * 3 + [texts["corpus"]]
    hf, fast = _both(monkeypatch, model, tok, batch, [7, 8, 9, 10], TOKENS, 1.5, top_p=0.97)
    assert spy["fast"] == 1
    assert fast == hf
    assert len({tuple(r) for r in fast[:3]}) > 1, "three seeds gave one sample: no sampling happened"


def test_a_row_samples_the_same_alone_and_in_any_batch(lm, texts, spy):
    model, tok = lm
    seeds = [21, 22, 23]
    # T = 1.5: the shipped model is confident enough that two seeds at 0.8 can agree on all 24 tokens
    together = sample_rows(model, tok, [texts["rms"]] * 3, seeds, TOKENS, 1.5, top_p=0.95)
    alone = [sample_rows(model, tok, [texts["rms"]], [s], TOKENS, 1.5, top_p=0.95)[0] for s in seeds[:2]]
    padded = sample_rows(model, tok, [texts["corpus"], texts["rms"]], [99, seeds[0]], TOKENS, 1.5, top_p=0.95)
    assert spy == {"fast": 4, "none": 0}
    assert together[:2] == alone
    assert padded[1] == together[0]
    assert together[0] != together[1]


def test_close_plan_forces_as_the_hf_path_does(lm, texts, monkeypatch, spy):
    """Budget 8, checked every 32 steps: the forcing at step 8 (and the check at 40) as in HF generate."""
    model, tok = lm
    close = tok(prompts.PLAN_CLOSE, add_special_tokens=False).input_ids
    batch = [texts["rms"], texts["corpus"]]
    hf, fast = _both(monkeypatch, model, tok, batch, [0, 1], 48, 0.0, plan_budget=8)
    assert fast == hf
    assert any(r[8:8 + len(close)] == close for r in fast), "no row was forced: the test exercises nothing"
    free = sample_rows(model, tok, batch, [0, 1], 16, 0.0)
    assert [r[:8] for r in free] == [r[:8] for r in fast]
    hf, fast = _both(monkeypatch, model, tok, batch, [3, 4], 48, 1.0, top_p=0.95, plan_budget=8)
    assert fast == hf
    assert spy["fast"] == 3 and spy["none"] == 0


def test_a_row_that_ends_emits_eos_then_nothing(lm, texts, monkeypatch, spy):
    """A prompt followed by most of its corpus response ends within a few tokens; the other row runs on."""
    import torch

    model, tok = lm
    r = _corpus_row()
    nearly = prompts.render(prompts.build_messages(r["problem"], "canonical"), tok) + r["response"][:-40]
    batch = [nearly, texts["rms"]]
    hf, fast = _both(monkeypatch, model, tok, batch, [0, 1], TOKENS, 0.0)
    assert fast == hf
    eos = tok.eos_token_id
    assert fast[0][-1] == eos and len(fast[0]) < TOKENS and eos not in fast[0][:-1]
    assert len(fast[1]) == TOKENS and eos not in fast[1]
    # the raw fast output: pad after the stop, and the loop stops once every row is done
    tok.padding_side = "left"
    enc = tok([nearly], return_tensors="pt", add_special_tokens=False)
    raw = fast_decode.generate(model, enc["input_ids"], enc["attention_mask"], [], 200, tok.pad_token_id)
    k = len(fast[0])
    assert raw[0, :k].tolist() == fast[0] and raw.shape[1] <= fast_decode.CHUNK
    assert torch.all(raw[0, k:] == tok.pad_token_id)


def _tiny(tok, **cfg):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    c = LlamaConfig(**{**dict(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                             num_attention_heads=2, num_key_value_heads=2, eos_token_id=tok.eos_token_id,
                             pad_token_id=tok.pad_token_id), **cfg})
    return LlamaForCausalLM(c).eval()


@pytest.mark.parametrize("cfg", [
    {"rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0}},
    {"attention_bias": True},
])
def test_an_unsupported_model_falls_back_to_hf_generate(lm, cfg, monkeypatch, spy, caplog):
    _, tok = lm
    model = _tiny(tok, **cfg)
    with caplog.at_level(logging.WARNING, logger="training.fast_decode"):
        hf, fast = _both(monkeypatch, model, tok, ["def f(x):", "import torch"], [0, 1], 8, 1.0)
    assert fast == hf and spy == {"fast": 0, "none": 1}
    assert any("falling back to transformers generate" in m for m in caplog.messages)


def test_grouped_query_attention_is_supported(lm, monkeypatch, spy):
    _, tok = lm
    model = _tiny(tok, num_attention_heads=4, num_key_value_heads=2, head_dim=16)
    hf, fast = _both(monkeypatch, model, tok, ["def f(x):", "import torch"], [0, 1], 12, 1.0)
    assert fast == hf and spy == {"fast": 1, "none": 0}


def test_a_failure_inside_the_fast_path_falls_back(lm, monkeypatch, spy, caplog):
    _, tok = lm
    model = _tiny(tok)

    def boom(*a, **k):
        raise RuntimeError("capture failed")

    monkeypatch.setattr(fast_decode.Runner, "run", boom)
    with caplog.at_level(logging.WARNING, logger="training.fast_decode"):
        hf, fast = _both(monkeypatch, model, tok, ["def f(x):"], [0], 8, 1.0)
    assert fast == hf and spy == {"fast": 0, "none": 1}
    assert any("capture failed" in m for m in caplog.messages)


def test_the_env_var_turns_the_fast_path_off(lm, monkeypatch):
    _, tok = lm
    model = _tiny(tok)

    def never(*a, **k):
        raise AssertionError("fast path called")

    monkeypatch.setattr(fast_decode, "generate", never)
    monkeypatch.setenv(fast_decode.ENV, "0")
    assert len(sample_rows(model, tok, ["def f(x):"], [0], 4, 1.0)[0]) == 4


def test_a_reused_runner_resets_its_state_between_calls(lm):
    """What a cached CUDA-graph runner relies on, eagerly on the CPU: one Runner (with the graph's fixed-size
    output buffer) serves calls of other prompt lengths, samplers and forcing, each as a fresh one would."""
    import torch

    from training.sampling import ClosePlan, RowSampler

    _, tok = lm
    model = _tiny(tok)
    tok.padding_side = "left"

    def call(r, texts, seeds, n, budget):
        enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        procs = [RowSampler(seeds, 1.0, "cpu", 0.9),
                 ClosePlan(tok, enc["input_ids"].shape[1], budget, every=4,
                           prompt_open=[prompts.ends_in_plan(t) for t in texts])]
        with torch.no_grad():
            return r.run(enc["input_ids"], enc["attention_mask"], n, *procs).tolist()

    def runner():
        return fast_decode.Runner(model, 2, 256, sample=True, nucleus=True, stop_ids=[tok.eos_token_id],
                                  pad=tok.pad_token_id, use_graph=True)  # use_graph without a capture: eager

    a = (["<think> def f(x):", "import torch"], [1, 2], 40, 3)
    b = (["class Model(nn.Module):\n    def forward(self, x):", "<think>"], [3, 4], 70, 5)
    r = runner()
    first, second, again = call(r, *a), call(r, *b), call(r, *a)
    close = tok(prompts.PLAN_CLOSE, add_special_tokens=False).input_ids
    assert first[0][3:3 + len(close)] == close and second[1][5:5 + len(close)] == close
    assert first == again == call(runner(), *a)
    assert second == call(runner(), *b)


@pytest.mark.gpu
def test_cuda_graph_replays_what_the_eager_step_computes_from_a_worker_thread(texts):
    """Capture and replay in a worker thread (the language server's case); greedy and sampled rows equal to
    the eager fast path (the graph replays the same kernels); a second call reuses the captured graph; in
    float32, greedy equal to HF generate."""
    import concurrent.futures

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from training import default_model
    from training.sampling import RowSampler

    path = default_model.path()
    tok = AutoTokenizer.from_pretrained(path)
    tok.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16).to("cuda").eval()
    enc = tok([texts["rms"]] * 3 + [texts["corpus"]], return_tensors="pt", padding=True,
              add_special_tokens=False).to("cuda")
    n = 200

    def run(graph: bool, temperature: float, seeds=(1, 2, 3, 4)):
        procs = [RowSampler(list(seeds), temperature, "cuda", 0.95)] if temperature > 0 else []
        out = fast_decode.generate(model, enc["input_ids"], enc["attention_mask"], procs, n, tok.pad_token_id,
                                   graph=graph)
        assert out is not None
        return out.tolist()

    fast_decode.clear()
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        g0 = ex.submit(run, True, 0.0).result()
        e0 = ex.submit(run, False, 0.0).result()
        g1 = ex.submit(run, True, 1.0).result()
        e1 = ex.submit(run, False, 1.0).result()
        again = ex.submit(run, True, 1.0).result()
    assert g0 == e0 and g1 == e1 and again == g1
    assert g1[0] != g1[1]
    assert len(fast_decode._runners) >= 1  # captured graphs are kept for the next call
    # a row alone samples what it samples in the batch (the graph for batch 1 is another capture)
    enc1 = tok([texts["rms"]], return_tensors="pt", add_special_tokens=False).to("cuda")
    alone = fast_decode.generate(model, enc1["input_ids"], enc1["attention_mask"],
                                 [RowSampler([2], 1.0, "cuda", 0.95)], n, tok.pad_token_id, graph=True)
    assert alone[0].tolist() == g1[1][:alone.shape[1]]

    model32 = model.float()
    fast_decode.clear()
    m = 48
    enc32 = tok([texts["rms"], texts["corpus"]], return_tensors="pt", padding=True,
                add_special_tokens=False).to("cuda")
    with torch.no_grad():
        hf = model32.generate(**enc32, do_sample=False, max_new_tokens=m, pad_token_id=tok.pad_token_id,
                              top_k=None, top_p=None, temperature=None, cache_implementation="static",
                              disable_compile=True)[:, enc32["input_ids"].shape[1]:].cpu()
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        fast = ex.submit(fast_decode.generate, model32, enc32["input_ids"], enc32["attention_mask"], [], m,
                         tok.pad_token_id, True).result()
    assert fast.tolist() == hf.tolist()
