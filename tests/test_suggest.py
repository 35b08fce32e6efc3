"""Module -> problem -> prompt -> candidates -> verified, ranked suggestions (training.suggest),
with the three kinds of backend: a tiny real transformers model, canned responses, and an
OpenAI-compatible HTTP server started by the test."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from chat_server import ChatServer as _ChatServer
from chat_server import start as start_chat_server
from conftest import CORPUS, ROOT
from training import prompts
from training.backends import Completion, GenerationConfig, OpenAIBackend, TransformersBackend
from training.suggest import run_problem, suggest

PROBLEM = (CORPUS / "problems" / "relu.py").read_text()
GOOD = (ROOT / "examples" / "relu_candidate.py").read_text()
FAST_CFG = dict(trials=1, perturb=1)


def answer(code: str, plan: str = "one elementwise kernel, BLOCK 1024") -> str:
    return f"<think>\n{plan}\n</think>\n```python\n{code}```"


class Canned:
    """A backend that answers from a list of responses (one list per turn)."""

    model_id = "canned"

    def __init__(self, turns: list[list[str]], refines: bool = True):
        self.turns, self.seen, self.seeds, self.refines = turns, [], [], refines

    def generate(self, conversations, cfg):
        self.seen.append(conversations[0])
        self.seeds.append(cfg.seed)
        texts = self.turns[min(len(self.seen) - 1, len(self.turns) - 1)]
        return [[Completion(t, prompt=prompts.render(conversations[0])) for t in texts[:cfg.n]]]


def test_ranking_and_report_with_known_responses():
    from verifier import VerifyConfig

    bad = GOOD.replace("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)")
    backend = Canned([["no code at all", answer(bad), answer(GOOD), answer("import torch\n")]])
    res = run_problem(PROBLEM, backend, n=4, turns=2, verify_cfg=VerifyConfig(**FAST_CFG))
    assert len(backend.seen) == 1  # a verified candidate in turn 1: no refinement turn
    labels = [c.label for c in res.candidates]
    assert labels[0] == "parse: no-fence" and labels[1].startswith("correctness") and "verified" in labels[2]
    assert labels[3].startswith("parse: missing-modelnew")
    assert res.best is not None and res.best.code == GOOD


def test_refinement_turn_feeds_back_the_verifier_findings():
    from verifier import VerifyConfig

    bad = GOOD.replace("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)")
    backend = Canned([[answer(bad)], [answer(GOOD)]])
    res = run_problem(PROBLEM, backend, n=1, turns=2, verify_cfg=VerifyConfig(**FAST_CFG))
    assert len(backend.seen) == 2 and res.best is not None and res.best.turn == 2
    follow_up = backend.seen[1][-1]["content"]
    assert backend.seen[1][-2]["role"] == "assistant" and "output-mismatch" in follow_up


def test_a_single_turn_model_refines_by_resampling_the_first_prompt(tmp_path):
    from verifier import VerifyConfig

    bad = GOOD.replace("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)")
    backend = Canned([[answer(bad)], [answer(bad)], [answer(GOOD)]], refines=False)
    res = run_problem(PROBLEM, backend, n=1, turns=3, gen=GenerationConfig(seed=5), verify_cfg=VerifyConfig(**FAST_CFG))
    assert len(backend.seen) == 3 and res.best is not None and res.best.turn == 3
    assert backend.seen[0] == backend.seen[1] == backend.seen[2] == prompts.build_messages(PROBLEM)
    assert len(set(backend.seeds)) == 3  # other samples each turn, still reproducible from the seed
    again = Canned([[answer(bad)], [answer(bad)], [answer(GOOD)]], refines=False)
    run_problem(PROBLEM, again, n=1, turns=3, gen=GenerationConfig(seed=5), verify_cfg=VerifyConfig(**FAST_CFG))
    assert again.seeds == backend.seeds


def test_checkpoints_of_this_repo_do_not_claim_to_refine(tmp_path):
    from training.backends import refines

    assert refines(tmp_path)  # any other model directory: follows a conversation
    (tmp_path / "tritonrl.json").write_text('{"stage": "sft", "samples": 10}')
    assert not refines(tmp_path)  # trained on the single-turn corpus
    (tmp_path / "tritonrl.json").write_text('{"stage": "rl", "multi_turn": true}')
    assert refines(tmp_path)
    (tmp_path / "tritonrl.json").write_text("{not json")
    assert not refines(tmp_path)


def test_each_checkpoint_is_prompted_in_the_problem_form_it_was_trained_on(tmp_path):
    from training.checkpoints import prompt_form

    assert prompt_form(tmp_path) == "canonical"  # any other model: the code without prose
    (tmp_path / "tritonrl.json").write_text('{"stage": "sft", "samples": 659}')
    assert prompt_form(tmp_path) == "raw"  # this repo's checkpoints from before canonical problems
    (tmp_path / "tritonrl.json").write_text('{"stage": "sft", "prompt": "canonical"}')
    assert prompt_form(tmp_path) == "canonical"
    documented = PROBLEM.replace("class Model(nn.Module):\n", 'class Model(nn.Module):\n    """ReLU, by hand."""\n', 1)
    assert "ReLU, by hand" in documented
    for form, shown in (("raw", True), ("canonical", False)):
        backend = Canned([[answer(GOOD)]])
        backend.prompt_form = form
        from verifier import VerifyConfig

        res = run_problem(documented, backend, n=1, turns=1, verify_cfg=VerifyConfig(**FAST_CFG))
        assert res.best is not None  # the verifier always gets the source as written
        assert ("ReLU, by hand" in backend.seen[0][0]["content"]) is shown
        assert backend.seen[0] == prompts.build_messages(documented, form)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A small Llama-style decoder from a config (random weights) and a BPE tokenizer trained here."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    d = tmp_path_factory.mktemp("tiny")
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = [prompts.EXAMPLE_RESPONSE, prompts.EXAMPLE_PROBLEM, PROBLEM, GOOD] * 10
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>", "<s>", "</s>"],
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    fast.save_pretrained(d)
    cfg = LlamaConfig(vocab_size=fast.vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=4096,
                      bos_token_id=1, eos_token_id=2)
    LlamaForCausalLM(cfg).save_pretrained(d)
    return d


def test_tiny_transformers_model_runs_the_whole_pipeline(tiny_model):
    from verifier import VerifyConfig

    backend = TransformersBackend(str(tiny_model), device="cpu")
    src = (ROOT / "tests" / "files" / "transformer.py").read_text()
    res = suggest(src, "RMSNorm", backend, n=2, turns=2, gen=GenerationConfig(max_new_tokens=24, seed=0),
                  verify_cfg=VerifyConfig(**FAST_CFG))
    assert len(res.candidates) == 4 and res.best is None  # random weights: nothing verifies, nothing crashes
    assert all(c.verdict.stage == "parse" for c in res.candidates)
    assert all(c.prompt and "RMSNorm" in c.prompt for c in res.candidates)


def test_bf16_weights_sample_in_float32_on_cpu_unless_asked(tiny_model, tmp_path):
    """dtype 'auto' on a CPU gives float32 (bf16 matmuls are emulated there); an explicit dtype is kept."""
    import shutil

    import torch
    from transformers import AutoModelForCausalLM

    d = tmp_path / "bf16"
    shutil.copytree(tiny_model, d)
    AutoModelForCausalLM.from_pretrained(str(d)).to(torch.bfloat16).save_pretrained(d)
    dtype_of = lambda b: next(b.model.parameters()).dtype  # noqa: E731
    assert dtype_of(TransformersBackend(str(d), device="cpu")) == torch.float32
    assert dtype_of(TransformersBackend(str(d), device="cpu", dtype=torch.bfloat16)) == torch.bfloat16


@pytest.fixture()
def chat_server():
    srv, url = start_chat_server()
    _ChatServer.reset()
    yield srv, url
    srv.shutdown()


def test_openai_backend_speaks_chat_completions(chat_server, monkeypatch):
    srv, url = chat_server
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    _ChatServer.replies = [{"text": answer(GOOD)}, {"text": "```python\nimport torch", "finish": "length"}]
    b = OpenAIBackend(url, "served-name")
    out = b.generate([prompts.build_messages(PROBLEM)], GenerationConfig(n=2, temperature=0.5, max_new_tokens=99,
                                                                          seed=7))[0]
    req = _ChatServer.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-test"
    assert req["body"]["model"] == "served-name" and req["body"]["n"] == 2 and req["body"]["max_tokens"] == 99
    assert req["body"]["seed"] == 7 and req["body"]["messages"][0]["role"] == "user"
    assert not out[0].truncated and out[1].truncated
    assert prompts.parse_response(out[1].text, truncated=out[1].truncated).error == "truncated"


def tritonrl(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "training.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)


def test_cli_suggest_against_a_server(chat_server, tmp_path):
    srv, url = chat_server
    f = tmp_path / "mod.py"
    f.write_text(PROBLEM.replace("class Model", "class MyReLU").replace("get_inputs", "get_inputs_MyReLU")
                 .replace("get_init_inputs", "get_init_inputs_MyReLU"))
    _ChatServer.replies = [{"text": "nothing"}, {"text": answer(GOOD)}]
    out = tmp_path / "kernel.py"
    p = tritonrl("suggest", f"{f}::MyReLU", "--endpoint", url, "-n", "2", "--json", "--out", out, "--trials", "1")
    assert p.returncode == 0, p.stdout + p.stderr
    obj = json.loads(p.stdout)
    assert obj["ok"] and obj["best"] == GOOD and out.read_text() == GOOD
    assert [c["label"].split(",")[0] for c in obj["candidates"]] == ["parse: no-fence", "verified (speed not measured)"]

    _ChatServer.replies = [{"text": "still nothing"}]
    p = tritonrl("suggest", f"{f}::MyReLU", "--endpoint", url, "-n", "1", "--turns", "1")
    assert p.returncode == 1 and "no verified kernel" in p.stderr


def test_cli_suggest_usage_errors(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import torch.nn as nn\nclass A(nn.Module):\n    def forward(self, x):\n        return x\n")
    assert tritonrl("suggest", "nope.py::A", "--endpoint", "http://127.0.0.1:9").returncode == 2
    assert tritonrl("suggest", f"{f}::B", "--endpoint", "http://127.0.0.1:9").returncode == 2
    p = tritonrl("suggest", f"{f}::A", "--endpoint", "http://127.0.0.1:9", "--json")
    assert p.returncode == 2 and "def get_inputs_A" in json.loads(p.stdout)["stub"]
    # the module is checked before any model loads: a missing model is not what it reports
    p = tritonrl("suggest", f"{f}::A", "--model", str(tmp_path / "no-such-model"), "--json")
    assert p.returncode == 2 and "get_inputs" in json.loads(p.stdout)["error"], p.stdout
    f.write_text("class A(:\n")
    p = tritonrl("suggest", f"{f}::A", "--model", str(tmp_path / "no-such-model"), "--json")
    assert p.returncode == 2 and "no-such-model" not in json.loads(p.stdout)["error"], p.stdout


def test_lora_adapter_directory_loads(tiny_model, tmp_path):
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    base = AutoModelForCausalLM.from_pretrained(str(tiny_model))
    peft_model = get_peft_model(base, LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
    adapter = tmp_path / "adapter"
    peft_model.save_pretrained(adapter)
    # the adapter directory names its base; ship the tokenizer beside it, as training will
    from transformers import AutoTokenizer

    AutoTokenizer.from_pretrained(str(tiny_model)).save_pretrained(adapter)
    b = TransformersBackend(str(adapter), device="cpu")
    out = b.generate([prompts.build_messages(PROBLEM)], GenerationConfig(n=2, max_new_tokens=8, seed=1))[0]
    assert len(out) == 2 and all(isinstance(c.text, str) for c in out)


def test_chat_template_is_used_when_the_checkpoint_has_one(tiny_model):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny_model))
    assert prompts.render(prompts.build_messages("P"), tok).endswith("### Assistant\n")  # none: raw prompt
    tok.chat_template = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}<|assistant|>"
    text = prompts.render(prompts.build_messages("P"), tok)
    assert text.startswith("<|user|>") and text.endswith("<|assistant|>")


def test_missing_vllm_is_a_clear_message():
    from training.backends import BackendError, load_backend

    pytest.importorskip("torch")
    try:
        import vllm  # noqa: F401
        pytest.skip("vllm is installed here")
    except ImportError:
        pass
    with pytest.raises(BackendError, match="vLLM"):
        load_backend("/some/model", backend="vllm")


def test_unloadable_model_is_a_clear_message(tmp_path):
    from training.backends import BackendError

    with pytest.raises(BackendError, match="not found"):
        TransformersBackend(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(BackendError, match="cannot load"):
        TransformersBackend(str(tmp_path / "empty"))
