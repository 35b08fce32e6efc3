"""`python -m training.sft --config tiny`: trains on CPU, loss on the response only, resumes, and
writes a checkpoint the suggest pipeline loads."""
import json
import subprocess
import sys


from conftest import ROOT
from training import prompts
from training.backends import GenerationConfig, TransformersBackend
from training.sft import read_samples, to_rows, train_tokenizer

CORPUS = ROOT / "data" / "corpus_tiny.jsonl"


def sft(*args):
    return subprocess.run([sys.executable, "-m", "training.sft", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_tiny_config_trains_resumes_and_loads(tmp_path):
    out = tmp_path / "run"
    p = sft("--config", "tiny", "--out", out, "--max-steps", "3")
    assert p.returncode == 0, p.stderr[-3000:]
    assert (out / "checkpoint-3").is_dir() and list((out / "runs").rglob("events.out.tfevents*"))
    p = sft("--config", "tiny", "--out", out, "--max-steps", "5")  # as after a kill: picks up checkpoint-3
    assert p.returncode == 0, p.stderr[-3000:]
    meta = json.loads((out / "final" / "tritonrl.json").read_text())
    assert meta["steps"] == 5 and meta["prompt"] == "canonical"  # how servers must prompt it
    state = json.loads((out / "checkpoint-5" / "trainer_state.json").read_text()) if (out / "checkpoint-5").exists() \
        else json.loads(sorted(out.glob("checkpoint-*"))[-1].joinpath("trainer_state.json").read_text())
    losses = [h["loss"] for h in state["log_history"] if "loss" in h]
    assert len(losses) >= 3 and all(x == x for x in losses)
    b = TransformersBackend(str(out / "final"), device="cpu")
    (c,) = b.generate([prompts.build_messages("import torch\n")], GenerationConfig(n=1, max_new_tokens=8, seed=0))[0]
    assert isinstance(c.text, str)


def test_loss_is_on_the_response_only(tmp_path):
    from datasets import Dataset
    from transformers import LlamaConfig, LlamaForCausalLM
    from trl import SFTConfig, SFTTrainer

    samples = read_samples([str(CORPUS)])[:4]
    tok = train_tokenizer([s["problem"] + s["response"] for s in samples], 512)
    rows = to_rows(samples, tok)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64,
                                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2))
    tr = SFTTrainer(model=model, args=SFTConfig(output_dir=str(tmp_path), completion_only_loss=True, max_length=4096,
                                                report_to=[], use_cpu=True),
                    train_dataset=Dataset.from_list(rows), processing_class=tok)
    ex = tr.train_dataset[0]
    n_prompt = len(tok(rows[0]["prompt"], add_special_tokens=False)["input_ids"])
    labels = ex["labels"]  # TRL marks what the loss ignores with -100
    assert all(t == -100 for t in labels[:n_prompt]) and all(t != -100 for t in labels[n_prompt:])
    assert len(labels) > n_prompt


def test_corpus_is_verified_and_described():
    rows = [json.loads(x) for x in CORPUS.read_text().splitlines()]
    assert len(rows) >= 32 and all({"problem", "plan", "candidate", "response", "family"} <= set(r) for r in rows)
    assert (ROOT / "data" / "README.md").exists()


def test_feedback_ingestion_dedupes(tmp_path):
    from training.feedback import FeedbackStore

    first = read_samples([str(CORPUS)])[0]
    db = tmp_path / "fb.sqlite3"
    st = FeedbackStore(db)
    ok = {"ok": True, "stage": "done"}
    a = st.record_shown(problem="NEW PROBLEM", response="NEW RESPONSE", code="c", verdict=ok)
    b = st.record_shown(problem=first["problem"], response=first["response"], code="c", verdict=ok)  # duplicate
    c = st.record_shown(problem="REJECTED", response="R", code="c", verdict=ok)
    d = st.record_shown(problem="UNVERIFIED", response="R", code="c", verdict={"ok": False})
    st.decide([a, b, d], "accepted")
    st.decide(c, "rejected")
    base = read_samples([str(CORPUS)])
    merged = read_samples([str(CORPUS)], str(db))
    assert len(merged) == len(base) + 1 and merged[-1]["problem"] == "NEW PROBLEM"


def test_lora_on_a_given_hf_model_writes_a_loadable_adapter(tmp_path, tiny_ckpt):
    """`--model HF_DIR --lora`: a peft adapter (checkpoints and final) that load_backend loads and runs."""
    from training.backends import load_backend

    cfg = tmp_path / "lora.json"
    cfg.write_text(json.dumps({"batch": 1, "save_steps": 2, "lora_r": 4}))
    out = tmp_path / "lora"
    p = sft("--config", cfg, "--model", tiny_ckpt, "--lora", "--out", out, "--max-steps", "2")
    assert p.returncode == 0, p.stderr[-3000:]
    for d in (out / "checkpoint-2", out / "final"):
        adapter = json.loads((d / "adapter_config.json").read_text())
        assert adapter["peft_type"] == "LORA" and adapter["base_model_name_or_path"] == str(tiny_ckpt)
        assert adapter["r"] == 4 and adapter["lora_alpha"] == 8  # the config's rank, alpha twice it
        assert (d / "adapter_model.safetensors").exists() and not (d / "model.safetensors").exists()  # adapter only
    b = load_backend(str(out), device="cpu")  # the run directory: its published final adapter
    assert type(b.model).__name__.startswith("Peft")
    (c,) = b.generate([prompts.build_messages("import torch\n")], GenerationConfig(n=1, max_new_tokens=4, seed=0))[0]
    assert isinstance(c.text, str)


def test_fine_tuning_a_bf16_checkpoint_keeps_small_steps(tmp_path, tiny_ckpt):
    """`--model` of a bf16 checkpoint (the shipped model is one) trains float32 weights: one step at lr 1e-5
    moves them, where bf16 weights would round most of that step away."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    bf16 = tmp_path / "bf16"
    AutoModelForCausalLM.from_pretrained(str(tiny_ckpt), dtype=torch.bfloat16).save_pretrained(str(bf16))
    AutoTokenizer.from_pretrained(str(tiny_ckpt)).save_pretrained(str(bf16))
    cfg = tmp_path / "ft.json"
    cfg.write_text(json.dumps({"batch": 2, "lr": 1e-5, "save_steps": 10}))
    out = tmp_path / "ft"
    p = sft("--config", cfg, "--model", bf16, "--out", out, "--max-steps", "1")
    assert p.returncode == 0, p.stderr[-3000:]
    start = AutoModelForCausalLM.from_pretrained(str(bf16), dtype=torch.float32).state_dict()
    final = AutoModelForCausalLM.from_pretrained(str(out / "final"), dtype=torch.float32).state_dict()
    # Adam's first step moves every weight with a gradient by about lr; a bf16 weight only when |w| < ~2e-3
    weights = [k for k in start if start[k].dim() == 2]
    moved = sum(int((start[k] != final[k]).sum()) for k in weights) / sum(start[k].numel() for k in weights)
    assert moved > 0.8, f"only {moved:.0%} of the weights moved"


def _event_steps(run_dir, tag="train/loss"):
    """Steps logged under `tag` by each TensorBoard events file of a run, oldest file first."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    files = sorted(run_dir.rglob("events.out.tfevents*"), key=lambda f: f.stat().st_mtime)
    out = []
    for f in files:
        acc = EventAccumulator(str(f))
        acc.Reload()
        out.append([e.step for e in acc.Scalars(tag)] if tag in acc.Tags()["scalars"] else [])
    return out


def _parses(path) -> bool:
    try:
        json.loads(path.read_text())
        return True
    except ValueError:
        return False


def test_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    """SIGKILL a real run once checkpoint-2 is complete; the same command then continues from step 2
    (it says so, trains only the remaining steps, and its state carries on) instead of restarting."""
    import os
    import signal
    import time

    cfg = tmp_path / "kill.json"
    cfg.write_text(json.dumps({"batch": 1, "save_steps": 2}))
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "training.sft", "--config", str(cfg), "--out", str(out), "--max-steps", "6"]
    log = (tmp_path / "first.log").open("w")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    ckpt = out / "checkpoint-2" / "trainer_state.json"  # written last: the checkpoint is complete
    deadline = time.monotonic() + 180
    try:
        while not (ckpt.exists() and _parses(ckpt)):
            assert proc.poll() is None, (tmp_path / "first.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "no checkpoint-2 within 180 s"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
        log.close()
    assert proc.returncode == -signal.SIGKILL
    assert not (out / "final").exists() and not (out / "checkpoint-6").exists()
    first = _event_steps(out / "runs")
    assert first and first[-1][:2] == [1, 2]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "resuming from checkpoint-2" in p.stdout
    meta = json.loads((out / "final" / "tritonrl.json").read_text())
    assert meta["steps"] == 6 and meta["resumed_from"] == "checkpoint-2"
    state = json.loads((out / "checkpoint-6" / "trainer_state.json").read_text())
    assert state["global_step"] == 6
    assert [h["step"] for h in state["log_history"] if "loss" in h] == [1, 2, 3, 4, 5, 6]
    second = _event_steps(out / "runs")[-1]  # the rerun's own log starts after the checkpoint
    assert second == [3, 4, 5, 6], second
