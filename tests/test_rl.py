"""`python -m training.rl`: HRD's per-token advantage layout, verifier-backed rewards, the GRPO
trainer subclass end to end on real verdicts, and the CLI on CPU (runs, logs, publishes, resumes)."""
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from conftest import ROOT
from training import checkpoints, hrd, prompts

CORPUS = ROOT / "data" / "corpus_tiny.jsonl"


def corpus_sample(family="elementwise"):
    for line in CORPUS.read_text().splitlines():
        r = json.loads(line)
        if r["family"] == family and "v = v * v\n" in r["response"]:
            return r
    raise AssertionError("no such corpus sample")


@pytest.fixture(scope="module")
def tokenizer(tiny_ckpt):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny_ckpt))


# ---------------------------------------------------------------- rewards and advantages

def test_rewards_from_verdicts():
    assert hrd.rewards(None) == (0.0, 0.0)
    assert hrd.rewards({"ok": False, "speedup": 3.0}) == (0.0, 0.0)
    assert hrd.rewards({"ok": True, "speedup": 2.5}) == (1.0, 2.5)
    assert hrd.rewards({"ok": True, "speedup": 500.0}) == (1.0, hrd.SPEEDUP_CAP)  # capped
    assert hrd.rewards({"ok": True, "speedup": None}) == (1.0, 1.0)  # CPU: not timed, taken as 1


def test_group_advantages_normalise_per_group_and_skip_unscorable():
    r = torch.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 1.0, float("nan"), 0.0])
    a = hrd.group_advantages(r, 4, "group")
    g1 = torch.tensor([1.0, 0.0, 0.0, 1.0])
    assert torch.allclose(a[:4], (g1 - 0.5) / (g1.std() + 1e-4))
    # second group: NaN is left out of the mean/std (1, 1, 0) and gets advantage 0
    g2 = torch.tensor([1.0, 1.0, 0.0])
    expect = (g2 - g2.mean()) / (g2.std() + 1e-4)
    assert torch.allclose(a[4:], torch.tensor([expect[0], expect[1], 0.0, expect[2]]))
    assert torch.equal(hrd.group_advantages(torch.ones(4), 4), torch.zeros(4))  # no signal, no advantage
    assert torch.allclose(hrd.group_advantages(r[:4], 4, "none"), g1 - 0.5)


def _batch(tokenizer, texts):
    rows = [tokenizer(t, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id] for t in texts]
    T = max(map(len, rows)) + 3  # right padding, as TRL hands completions over
    ids = torch.full((len(rows), T), tokenizer.pad_token_id or 0)
    mask = torch.zeros((len(rows), T), dtype=torch.long)
    for b, r in enumerate(rows):
        ids[b, :len(r)] = torch.tensor(r)
        mask[b, :len(r)] = 1
    return ids, mask


def test_per_token_advantage_layout(tokenizer):
    """Plan tokens carry α·A(R_speedup), code tokens A(R_correct), padding 0 — on a real tokenizer's
    tokens of a real response, with the plan span from the shared response parser."""
    resp = corpus_sample()["response"]
    no_plan = resp[resp.index("```python"):]
    ids, mask = _batch(tokenizer, [resp, no_plan])
    roles = hrd.roles_tensor(ids, mask, tokenizer)
    cut = prompts.plan_end(resp)
    assert 0 < cut < len(resp) and resp[:cut].rstrip().endswith("</think>")

    # every PLAN token decodes to text inside the plan, every CODE token to text after it
    n0 = int(mask[0].sum())
    plan_ids = [int(t) for t, r in zip(ids[0, :n0], roles[0, :n0]) if r == hrd.PLAN]
    code_ids = [int(t) for t, r in zip(ids[0, :n0], roles[0, :n0]) if r == hrd.CODE]
    assert plan_ids and code_ids and len(plan_ids) + len(code_ids) == n0
    r0 = roles[0, :n0].tolist()
    first_code = r0.index(hrd.CODE)
    assert all(x == hrd.PLAN for x in r0[:first_code]) and all(x == hrd.CODE for x in r0[first_code:])
    assert "</think>" in tokenizer.decode(plan_ids) and "```python" in tokenizer.decode(code_ids)
    assert "<think>" not in tokenizer.decode(code_ids)
    assert (roles[0, n0:] == hrd.NONE).all()  # padding
    n1 = int(mask[1].sum())
    assert (roles[1, :n1] == hrd.CODE).all() and (roles[1, n1:] == hrd.NONE).all()  # no plan: all code

    a_plan, a_code = torch.tensor([2.0, -1.0]), torch.tensor([0.5, 3.0])
    adv = hrd.hrd_advantages(roles, a_plan, a_code, alpha=0.1)
    assert adv.shape == ids.shape
    assert torch.allclose(adv[0][roles[0] == hrd.PLAN], torch.tensor(0.2))
    assert torch.allclose(adv[0][roles[0] == hrd.CODE], torch.tensor(0.5))
    assert torch.allclose(adv[1][roles[1] == hrd.CODE], torch.tensor(3.0))
    assert (adv[mask == 0] == 0).all()
    uni = hrd.uniform_advantages(roles, torch.tensor([0.7, -0.4]))
    assert torch.allclose(uni[0, :n0], torch.tensor(0.7)) and torch.allclose(uni[1, :n1], torch.tensor(-0.4))
    assert (uni[mask == 0] == 0).all()


# ---------------------------------------------------------------- verifier-backed rewards

def _cpu_verify_cfg():
    from training.rl import _verify_config

    return _verify_config("cpu", 2)


def test_sandboxes_are_shared_out_so_no_job_idles():
    from training.rl import sandboxes_per_problem

    for jobs in range(1, 17):
        for problems in range(1, 9):
            k = sandboxes_per_problem(jobs, problems)
            assert k >= 1
            assert k * problems >= min(jobs, problems * jobs)  # every job has a sandbox to run
            assert (k - 1) * problems < jobs or k == 1          # and no problem gets a whole extra round
    assert sandboxes_per_problem(7, 4) == 2 and sandboxes_per_problem(14, 4) == 4 and sandboxes_per_problem(2, 0) == 2


def test_with_batch_timing_every_problem_of_a_step_gets_its_thread_at_once():
    """A thread waiting for its problem's batch timing window must not keep the step's last problems from starting;
    otherwise the threads stay at the jobs (each a busy sandbox). RL's defaults and config keys reach the verifier."""
    from training.rl import _verify_config, problem_threads

    gpu, cpu = _verify_config("cuda", 14, 16), _verify_config("cpu", 2, 4)
    assert gpu.times and not gpu.batch_timing and gpu.pool_size == 14 and not cpu.times
    batched = _verify_config("cuda", 14, 16, batch_timing=True, pool_size=42)
    assert batched.batch_timing and batched.timing_patience_s == 30.0 and batched.pool_size == 42
    assert problem_threads(14, 16, True) == 16 and problem_threads(14, 4, True) == 4
    assert problem_threads(2, 4, False) == 2 and problem_threads(14, 16, False) == 14
    assert problem_threads(2, 0, True) == problem_threads(2, 0, False) == 1


def test_verifier_reward_scores_real_candidates():
    from training.rl import VerifierReward

    s = corpus_sample()
    good = s["response"]
    wrong = good.replace("v = v * v\n", "v = v * 2.0\n")      # compiles and runs, wrong numbers
    cheat = "<think>call torch</think>\n```python\n" + s["problem"].replace("class Model(", "class ModelNew(") + "```\n"
    junk = "<think>unfinished"
    vr = VerifierReward(_cpu_verify_cfg(), jobs=2)
    texts = [good, wrong, cheat, junk]
    rc = vr.correct(None, texts, [[0]] * 4, [s["problem"]] * 4)
    rs = vr.speedup(None, texts)
    assert rc == [1.0, 0.0, 0.0, 0.0] and rs == [1.0, 0.0, 0.0, 0.0]  # CPU: R_speedup = R_correct
    stages = [r["verdict"]["stage"] for r in vr.last["results"]]
    assert stages[0] == "done" and stages[1] == "correctness" and stages[3] == "parse"
    assert stages[2] != "done"
    assert vr.stats["verified"] == 3 and vr.stats["reused"] == 0  # junk never reaches the verifier
    # the same code again (in the batch twice, and seen last step): reused, not re-verified
    again = [wrong, good, good]
    assert vr.correct(None, again, [[0]] * 3, [s["problem"]] * 3) == [0.0, 1.0, 1.0]
    assert vr.stats["verified"] == 0 and vr.stats["reused"] == 3
    # a different problem with the same code is a different verification
    other = s["problem"].replace("class Model(", "class Model(  ")
    assert vr.correct(None, [good], [[0]], [other]) == [1.0] and vr.stats["verified"] == 1
    # a problem the verifier cannot even load: unscorable (None), not a zero reward, never an exception
    assert vr.correct(None, [good], [[0]], ["this is not python ("]) == [None]
    # a reference worker that dies: its message keeps the traceback's end, where the cause is (the rollout log cut
    # these at 300 characters, which left only "Traceback ... File worker_reference.py")
    dies = s["problem"] + "\nimport sys\nsys.stderr.write('frame\\n' * 400 + 'THE-CAUSE\\n')\nsys.exit(3)\n"
    assert vr.correct(None, [good], [[0]], [dies]) == [None]
    why = vr.last["results"][0]["verdict"]["reasons"][0]["message"]
    assert why.startswith("the reference worker exited with 3") and why.endswith("THE-CAUSE") and len(why) < 1600


def test_clip_keeps_both_ends():
    from training.rl import clip

    assert clip("short") == "short"
    text = "head " + "x" * 5000 + " tail"
    c = clip(text, head=10, tail=20)
    assert c.startswith("head xxxxx") and c.endswith("xxxxxxxxxxxxxxx tail") and " ... " in c and len(c) == 35


# ---------------------------------------------------------------- the trainer subclass

def test_hrd_trainer_hands_per_token_advantages_to_the_loss(tiny_ckpt, tokenizer, tmp_path):
    """HRDTrainer on fixed rollouts (2 correct, 2 wrong responses to one prompt) scored by the real
    verifier: the batch's advantages are (B, T), plan tokens α·A, code tokens A, and the GRPO loss
    is finite and has a gradient."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM
    from trl import GRPOConfig

    from training.rl import VerifierReward, _make_trainer_class

    s = corpus_sample()
    good, wrong = s["response"], s["response"].replace("v = v * v\n", "v = v * 2.0\n")
    prompt = prompts.render(prompts.build_messages(s["problem"]), tokenizer)
    responses = [good, wrong, good, wrong]

    def rollout(prompts_in, trainer):
        assert len(prompts_in) == 4
        p_ids = tokenizer(prompts_in[0], add_special_tokens=False)["input_ids"]
        c_ids = [tokenizer(r, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id] for r in responses]
        return {"prompt_ids": [p_ids] * 4, "completion_ids": c_ids, "logprobs": None}

    model = AutoModelForCausalLM.from_pretrained(str(tiny_ckpt))
    args = GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=4, num_generations=4,
                      max_completion_length=1024, use_cpu=True, report_to=[], beta=0.0, logging_steps=1,
                      remove_unused_columns=False, scale_rewards="group")
    data = Dataset.from_list([{"prompt": prompt, "problem": s["problem"], "pid": s["id"]}])
    trainer = _make_trainer_class()(model=model, args=args, train_dataset=data, processing_class=tokenizer,
                                    rollout_func=rollout, verifier_reward=VerifierReward(_cpu_verify_cfg()),
                                    reward_mode="hrd", alpha=0.1, rollout_log=tmp_path / "rollouts.jsonl")
    trainer.model.train()
    inputs = [dict(data[0]) for _ in range(4)]
    out = trainer._generate_and_score_completions(inputs)
    adv, ids, mask = out["advantages"], out["completion_ids"], out["completion_mask"]
    assert adv.shape == ids.shape
    roles = hrd.roles_tensor(ids, mask, tokenizer)
    a = hrd.group_advantages(torch.tensor([1.0, 0.0, 1.0, 0.0]), 4)  # R_speedup = R_correct on CPU
    for b in range(4):
        plan, code = roles[b] == hrd.PLAN, roles[b] == hrd.CODE
        assert plan.any() and code.any()
        assert torch.allclose(adv[b][plan], 0.1 * a[b]) and torch.allclose(adv[b][code], a[b])
        assert (adv[b][mask[b] == 0] == 0).all()
    assert (adv[0][mask[0] == 1] > 0).all() and (adv[1][mask[1] == 1] < 0).all()
    logged = [json.loads(x) for x in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert [r["r_correct"] for r in logged] == [1.0, 0.0, 1.0, 0.0] and logged[1]["stage"] == "correctness"
    assert trainer._metrics["train"]["hrd/correct_rate"][-1] == 0.5

    trainer.current_gradient_accumulation_steps = 1  # set by Trainer's loop, which this test does not run
    loss = trainer.compute_loss(trainer.model, out)
    assert torch.isfinite(loss)
    loss.backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in trainer.model.parameters())
    full = [p.grad.clone() for p in trainer.model.parameters() if p.grad is not None]

    # TRL's entropy token selection (config top_entropy_quantile) on per-token advantages: a smaller gradient, not 0
    trainer.model.zero_grad()
    trainer.top_entropy_quantile = 0.2
    out = trainer._generate_and_score_completions(inputs)
    loss = trainer.compute_loss(trainer.model, out)
    assert torch.isfinite(loss)
    loss.backward()
    kept = [p.grad for p in trainer.model.parameters() if p.grad is not None]
    assert 0 < sum(g.abs().sum() for g in kept) < sum(g.abs().sum() for g in full)
    trainer.top_entropy_quantile = 1.0

    # config negative_advantage_scale: the wrong samples' tokens weigh less, the right ones' are unchanged
    trainer.negative_scale = 0.25
    out = trainer._generate_and_score_completions(inputs)
    for b in range(4):
        m = out["completion_mask"][b] == 1
        plan, code = roles[b] == hrd.PLAN, roles[b] == hrd.CODE
        w = 1.0 if a[b] > 0 else 0.25
        assert torch.allclose(out["advantages"][b][plan], w * 0.1 * a[b])
        assert torch.allclose(out["advantages"][b][code], w * a[b])
    trainer.negative_scale = 1.0

    # config anchor_coef: the SFT anchor adds coef x the policy's NLL on SFT samples to the loss (training.anchor)
    from training.anchor import AnchorBatches, completion_nll

    out = trainer._generate_and_score_completions(inputs)
    base = trainer.compute_loss(trainer.model, out).item()
    trainer.sft_anchor, trainer.anchor_coef = AnchorBatches([s], tokenizer, batch=2), 0.5
    nll = completion_nll(trainer.model, *AnchorBatches([s], tokenizer, batch=2).next()).item()
    assert trainer.compute_loss(trainer.model, out).item() == pytest.approx(base + 0.5 * nll, rel=1e-4)
    assert trainer._metrics["train"]["hrd/anchor_nll"][-1] == pytest.approx(nll, rel=1e-4)
    # under gradient accumulation each micro-batch's anchor weighs 1/accum (GRPO's loss is scaled for it already)
    accum, trainer.current_gradient_accumulation_steps = trainer.current_gradient_accumulation_steps, 4
    try:
        anchor, trainer.anchor_coef = trainer.anchor_coef, 0.0
        base4 = trainer.compute_loss(trainer.model, out).item()  # GRPO's own normaliser sees the accumulation too
        trainer.anchor_coef = anchor
        assert trainer.compute_loss(trainer.model, out).item() == pytest.approx(base4 + 0.5 * nll / 4, rel=1e-4)
    finally:
        trainer.current_gradient_accumulation_steps = accum
    # config anchor_kind "kl": coef x the policy's KL from the reference model on the SFT samples instead
    import copy

    from training.anchor import completion_kl, labelled_logp

    trainer.anchor_kind = "kl"
    ref_before, trainer.ref_model = trainer.ref_model, copy.deepcopy(trainer.model).eval()  # tiny's kl is 0: no ref
    try:
        assert trainer.compute_loss(trainer.model, out).item() == pytest.approx(base, abs=1e-6)  # policy == ref
        # another reference: a model of the same shape from other random weights (not seed 0: the tiny checkpoint
        # is one)
        torch.manual_seed(1234)
        ref = trainer.ref_model = AutoModelForCausalLM.from_config(trainer.model.config).eval()
        ids, mask, labels = AnchorBatches([s], tokenizer, batch=2).next()
        with torch.no_grad():
            kl = completion_kl(trainer.model, ids, mask, labels,
                               labelled_logp(ref(input_ids=ids, attention_mask=mask).logits, labels)).item()
        assert kl > 0
        assert trainer.compute_loss(trainer.model, out).item() == pytest.approx(base + 0.5 * kl, rel=1e-4)
        assert trainer._metrics["train"]["hrd/anchor_kl"][-1] == pytest.approx(kl, rel=1e-4)
    finally:
        trainer.ref_model, trainer.anchor_kind = ref_before, "nll"
    trainer.sft_anchor, trainer.anchor_coef = None, 0.0

    # the uniform baseline: one advantage for every completion token
    trainer.reward_mode = "uniform"
    out = trainer._generate_and_score_completions(inputs)
    for b in range(4):
        m = out["completion_mask"][b] == 1
        assert torch.allclose(out["advantages"][b][m], a[b])


# ---------------------------------------------------------------- prompts

def test_anchor_config_errors_say_what_to_set(tmp_path):
    from training.rl import CONFIGS, anchor_error, main

    tiny = CONFIGS["tiny"]
    assert anchor_error(tiny, False) is None  # no anchor
    assert "anchor_data" in anchor_error(dict(tiny, anchor_coef=1.0), False)
    data = dict(tiny, anchor_coef=1.0, anchor_data=[str(CORPUS)])
    assert anchor_error(data, False) is None and anchor_error(dict(data, anchor_kind="nll"), False) is None
    assert 'must be "nll" or "kl"' in anchor_error(dict(data, anchor_kind="ppo"), False)
    assert "reference model" in anchor_error(dict(data, anchor_kind="kl"), False)  # tiny's kl is 0
    assert anchor_error(dict(data, anchor_kind="kl"), True) is None
    assert anchor_error(dict(data, anchor_kind="kl", kl=0.02), False) is None
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"anchor_coef": 1.0, "anchor_data": [str(CORPUS)], "anchor_kind": "kl"}))
    assert main(["--config", str(cfg), "--init", str(tmp_path), "--out", str(tmp_path / "o")]) == 2  # said, not run


def test_prompt_set_split_is_stable_and_takes_feedback(tmp_path):
    from training.feedback import FeedbackStore
    from training.rl import build_prompt_set

    db = tmp_path / "fb.sqlite3"
    st = FeedbackStore(db)
    user_problem = corpus_sample()["problem"].replace("tanh", "tanh ")  # a module a user asked about
    st.record_shown(problem=user_problem, response="r", code="c", verdict={"ok": False})
    st.close()
    a = build_prompt_set(8, 3, seed=11, feedback_db=str(db), log=lambda *_: None)
    b = build_prompt_set(8, 3, seed=11, feedback_db=str(db), log=lambda *_: None)
    assert a == b
    held = [r for r in a if r["split"] == "heldout"]
    train = [r for r in a if r["split"] == "train"]
    assert len(held) == 3 and len(train) == 9  # 8 generated + 1 from the feedback store
    assert not {r["problem"] for r in held} & {r["problem"] for r in train}
    assert user_problem in {r["problem"] for r in a}
    excl = {train[0]["problem"]}
    c = build_prompt_set(8, 3, seed=11, exclude=excl, log=lambda *_: None)
    assert not excl & {r["problem"] for r in c}


# ---------------------------------------------------------------- the CLI

def rl(*args):
    return subprocess.run([sys.executable, "-m", "training.rl", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_tiny_config_runs_logs_publishes_and_resumes(tiny_ckpt, tmp_path):
    out = tmp_path / "rl"
    p = rl("--config", "tiny", "--init", tiny_ckpt, "--out", out, "--no-feedback", "--max-steps", "2")
    assert p.returncode == 0, p.stderr[-3000:]
    rows = [json.loads(x) for x in (out / "prompts.jsonl").read_text().splitlines()]
    assert {r["split"] for r in rows} == {"train", "heldout"}
    rollouts = [json.loads(x) for x in (out / "rollouts.jsonl").read_text().splitlines()]
    assert len(rollouts) == 2 * 4 and {"step", "ok", "stage", "r_correct", "a_plan", "a_code",
                                       "plan_tokens", "code_tokens", "completion", "why"} <= set(rollouts[0])
    assert all(r["why"] for r in rollouts if r["ok"] is False)
    held = [json.loads(x) for x in (out / "heldout.jsonl").read_text().splitlines()]
    assert [h["tag"] for h in held] == ["before", "after"] and held[0]["samples"] == 2 * 2
    assert sum(len(v) for v in held[0]["by_problem"].values()) == 4 and len(held[0]["by_problem"]) == 2
    assert (out / "curves.png").stat().st_size > 1000
    assert list((out / "runs").rglob("events.out.tfevents*"))
    # --publish gated (the default): nothing served while training; the final, whose held-out rate did not fall
    # (the tiny model solves nothing before or after), is served as a copy that a later run cannot overwrite
    assert "rl: published checkpoint-" not in p.stdout and "rl: published published-step-2" in p.stdout
    latest = checkpoints.latest(out)
    assert latest and checkpoints.is_checkpoint(latest["path"]) and latest["path"].endswith("published-step-2")
    assert latest["gate"] == f"held-out correct rate {held[0]['correct_rate']:.3f} -> {held[1]['correct_rate']:.3f}"
    meta = json.loads((out / "final" / "tritonrl.json").read_text())
    assert meta["stage"] == "rl" and meta["steps"] == 2 and meta["reward"] == "hrd"
    assert meta["heldout_after"] == held[1]["correct_rate"] and meta["published"] is True
    assert json.loads((out / "published-step-2" / "tritonrl.json").read_text()) == meta
    # the policy keeps the problem form of its initial checkpoint, and so does every published checkpoint
    init_form = checkpoints.prompt_form(checkpoints.resolve(tiny_ckpt))
    assert meta["prompt"] == init_form and meta["multi_turn"] is (checkpoints.meta(tiny_ckpt) is None)
    assert all(checkpoints.prompt_form(c) == init_form for c in out.glob("checkpoint-*"))
    hist = json.loads((out / "log_history.json").read_text())
    assert any("hrd/correct_rate" in h for h in hist) and all(math.isfinite(h.get("loss", 0)) for h in hist)

    # as after a kill: a second start with a larger budget picks up checkpoint-2, keeps the split; without the
    # held-out evaluation after training, its final checkpoint and files are still whole
    curves = (out / "curves.png").stat().st_mtime_ns
    # a kill after generating step 2's rollouts and before saving checkpoint-3 leaves them logged (and a cut line)
    ghost = dict(rollouts[0], step=2, completion="the killed run's step-2 rollout")
    with open(out / "rollouts.jsonl", "a") as f:
        f.write(json.dumps(ghost) + "\n" + '{"step": 2, "mo')
    # (this leg also turns on the SFT anchor, training.anchor: a config file over tiny's)
    cfg = tmp_path / "anchor.json"
    cfg.write_text(json.dumps({"anchor_coef": 0.1, "anchor_data": [str(CORPUS)], "anchor_batch": 2}))
    p = rl("--config", cfg, "--init", tiny_ckpt, "--out", out, "--no-feedback", "--max-steps", "3",
           "--reward", "uniform", "--no-eval-after")
    assert p.returncode == 0, p.stderr[-3000:]
    assert "rl: SFT anchor (nll), coef 0.1" in p.stdout
    anchored = [h for h in json.loads((out / "log_history.json").read_text()) if "hrd/anchor_nll" in h]
    assert [h["step"] for h in anchored] == [3] and 0 < anchored[0]["hrd/anchor_nll"] < 100
    assert [json.loads(x) for x in (out / "prompts.jsonl").read_text().splitlines()] == rows
    meta = json.loads((out / "final" / "tritonrl.json").read_text())
    assert meta["steps"] == 3 and meta["reward"] == "uniform" and "heldout_after" not in meta
    # unevaluated, so not served: the step-2 copy still is (final/ was overwritten, the served copy was not)
    assert meta["published"] is False and "no held-out rate of the final checkpoint" in meta["publish_gate"]
    assert "rl: not published: no held-out rate of the final checkpoint" in p.stdout
    assert checkpoints.latest(out)["path"].endswith("published-step-2") and (out / "curves.png").stat().st_mtime_ns > curves
    assert json.loads((out / "published-step-2" / "tritonrl.json").read_text())["steps"] == 2
    steps = [json.loads(x)["step"] for x in (out / "rollouts.jsonl").read_text().splitlines()]
    assert steps == [0] * 4 + [1] * 4 + [2] * 4  # each step's rollouts once: those that trained the model
    discarded = (out / "rollouts.discarded.jsonl").read_text().splitlines()
    assert len(discarded) == 2 and json.loads(discarded[0]) == ghost and "2 rollouts of unsaved steps" in p.stdout
    held = [json.loads(x) for x in (out / "heldout.jsonl").read_text().splitlines()]
    assert [h["tag"] for h in held] == ["before", "after"]  # no second "before" on resume, no "after" asked
    # the comparison report reads what the run logged
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import rl_report

    row = rl_report.summarize(out)
    assert row["steps"] == 3 and row["rollouts logged"] == str(3 * 4) and row["held-out samples"] == "4"
    assert row["held-out correct after"] == f"{held[-1]['correct_rate']:.3f}"


def test_a_refused_final_is_not_served_and_a_fresh_run_directory_serves_its_start(tiny_ckpt, tmp_path):
    """--publish gated with a gain required (negative tolerance) that the untrained tiny model cannot show: the
    final is refused, and the run directory, which served nothing yet, points at the initial checkpoint, so that
    `--model RUN` does not fall back to the refused final/."""
    out = tmp_path / "rl"
    p = rl("--config", "tiny", "--init", tiny_ckpt, "--out", out, "--no-feedback", "--max-steps", "1",
           "--publish-tolerance", "-0.5")
    assert p.returncode == 0, p.stderr[-3000:]
    assert "rl: not published: held-out correct rate 0.000 -> 0.000, less than the required gain 0.5" in p.stdout
    meta = json.loads((out / "final" / "tritonrl.json").read_text())
    assert meta["published"] is False and not list(out.glob("published-step-*"))
    served = checkpoints.latest(out)
    assert served["stage"] == "init" and Path(served["path"]) == checkpoints.resolve(tiny_ckpt).resolve()
    assert checkpoints.resolve(out) == Path(served["path"])


def test_publish_gate_decides_on_the_start_and_final_rates(tmp_path):
    from training import publish_gate as g

    assert g.decide(0.64, 0.66)[0] and g.decide(0.64, 0.64)[0]
    ok, why = g.decide(0.641, 0.281)
    assert not ok and why == "held-out correct rate fell 0.641 -> 0.281"
    assert g.decide(0.64, 0.62, tolerance=0.05)[0] and not g.decide(0.64, 0.58, tolerance=0.05)[0]
    assert g.decide(0.5, 0.5, tolerance=-0.1) == (False, "held-out correct rate 0.500 -> 0.500, less than the "
                                                         "required gain 0.1")
    assert not g.decide(None, 0.9)[0] and not g.decide(0.1, None)[0]
    log = tmp_path / "heldout.jsonl"
    assert g.start_rate(log) is None
    log.write_text(json.dumps({"tag": "after", "correct_rate": 0.2}) + "\nnot json\n"
                   + json.dumps({"tag": "before", "correct_rate": 0.4}) + "\n"
                   + json.dumps({"tag": "before", "correct_rate": 0.9}) + "\n")
    assert g.start_rate(log) == 0.4
    src = tmp_path / "final"
    src.mkdir()
    (src / "config.json").write_text("{}")
    dst = g.serve_copy(src, tmp_path, 7)
    (src / "config.json").write_text('{"changed": 1}')  # a later save to final/ does not reach the served copy
    assert dst.name == "published-step-7" and (dst / "config.json").read_text() == "{}"
    assert g.serve_copy(src, tmp_path, 7) == dst and (dst / "config.json").read_text() == '{"changed": 1}'
    assert not list(tmp_path.glob(".published-step-*"))


def test_row_gumbel_samples_softmax_at_the_temperature_and_per_row():
    """Greedy decoding with the row-wise Gumbel processor is sampling: token frequencies match
    softmax(logits / T), and a row's draws depend only on its own seed."""
    import torch

    from training.sampling import RowSampler as _RowGumbel

    logits = torch.tensor([[2.0, 1.0, 0.0, -1.0]])
    for t in (1.0, 0.5):
        proc = _RowGumbel([123], t, "cpu")
        picks = torch.tensor([int(proc(None, logits).argmax()) for _ in range(6000)])
        freq = torch.bincount(picks, minlength=4).float() / len(picks)
        assert torch.allclose(freq, torch.softmax(logits[0] / t, -1), atol=0.025), (t, freq)
    alone = _RowGumbel([7], 1.0, "cpu")
    batch = _RowGumbel([99, 7], 1.0, "cpu")
    wide = torch.zeros(2, 50)
    for _ in range(5):
        assert int(alone(None, wide[:1]).argmax()) == int(batch(None, wide)[1].argmax())


def test_a_verdict_rejected_only_for_gpu_memory_is_unscored():
    """Rewards: a candidate the shared GPU had no memory for gets no reward either way (None, like a verifier fault),
    and is not remembered; any reason about the kernel keeps it a zero."""
    from training import hrd
    from training.rl import unscored_if_inconclusive
    from verifier import Verdict

    oom = Verdict(device="cuda", stage="correctness").fail("performance", "gpu-out-of-memory", "no memory")
    assert unscored_if_inconclusive(oom.to_dict())["ok"] is None
    wrong = Verdict(device="cuda").fail("correctness", "output-mismatch", "x")
    assert unscored_if_inconclusive(wrong.to_dict())["ok"] is False
    assert hrd.rewards(unscored_if_inconclusive(wrong.to_dict())) == (0.0, 0.0)
    both = Verdict(device="cuda").fail("correctness", "output-mismatch", "x").fail("sandbox", "gpu-out-of-memory", "y")
    assert unscored_if_inconclusive(both.to_dict())["ok"] is False
    ok = Verdict(ok=True, stage="done", device="cuda", speedup=2.0)
    assert unscored_if_inconclusive(ok.to_dict()) == ok.to_dict()


def test_rollout_sampling_options_reach_grpo_config(tmp_path):
    """A run config's temperature and optional top_p / top_k / min_p become GRPOConfig's rollout sampling (TRL hands
    them to generation); absent ones keep TRL's defaults."""
    from trl import GRPOConfig

    from training.rl import CONFIGS, grpo_sampling

    hot = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, report_to=[],
                     **grpo_sampling({**CONFIGS["tiny"], "temperature": 1.2, "min_p": 0.05}))
    assert (hot.temperature, hot.min_p, hot.top_p, hot.top_k) == (1.2, 0.05, 1.0, 0)
    plain = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, report_to=[], **grpo_sampling(CONFIGS["tiny"]))
    assert (plain.temperature, plain.min_p, plain.top_p) == (1.0, None, 1.0)
    assert grpo_sampling({"temperature": 0.9, "top_p": 0.95, "top_k": 50}) == {"temperature": 0.9, "top_p": 0.95,
                                                                                "top_k": 50}


def test_rl_report_counts_groups_that_teach_nothing_about_correctness(tmp_path):
    """A group (one prompt's completions in one step) that is all right or all wrong has no correctness advantage:
    the report counts them, and duplicate completions within a group, from the run's rollouts."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import rl_report

    rows = []
    for step, pid, rewards, texts in [(0, 0, [1, 1, 1], "abc"), (0, 1, [0, 0, 0], "aab"), (0, 2, [1, 0, 1], "xyz"),
                                      (1, 0, [0, 1, 0], "ppp"), (1, 1, [1, 1, 1], "qrs")]:
        rows += [{"step": step, "pid": pid, "mode": "train", "r_correct": float(r), "completion": t}
                 for r, t in zip(rewards, texts)]
    rows.append({"step": 1, "pid": 0, "mode": "eval", "r_correct": 1.0, "completion": "held-out rows are not counted"})
    rows += [{"step": 2, "pid": 3, "mode": "train", "r_correct": None, "stage": "verifier-error", "completion": t}
             for t in "uv"]  # a step whose rollouts all went unscored: no group, no correct rate, still a step
    (tmp_path / "rollouts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    hist = [{"step": 1, "hrd/plan_token_frac": 0.1, "hrd/correct_rate": 0.5, "hrd/gpu_free_gb": 30.0,
             "hrd/gpu_peak_reserved_gb": 40.0},
            {"step": 2, "hrd/plan_token_frac": 0.1, "hrd/gpu_free_gb": 0.5, "hrd/gpu_peak_reserved_gb": 70.0}]
    (tmp_path / "log_history.json").write_text(json.dumps(hist))
    row = rl_report.summarize(tmp_path)
    assert row["groups without correctness variance (all right / all wrong)"] == "3 of 5 (2 / 1)"
    assert row["duplicate completions within a group"] == "3 of 15"
    assert row["steps"] == 2 and row["rollouts unscored (verifier-error)"] == "2 of 17"
    assert row["trainer peak reserved GiB, max"] == "70.0" and row["GPU free GiB when verifying, min"] == "0.5"


def test_a_lora_run_saves_its_adapter_and_a_merged_final(tiny_ckpt, tmp_path):
    """--lora: the adapter trains (final_adapter/), and final/ is the base with the adapter merged in: plain
    weights that differ from the start exactly by the adapter's update."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    out = tmp_path / "rl"
    cfg = tmp_path / "lora.json"
    # the tiny model solves nothing (every advantage 0): the SFT anchor gives the step its gradient; kl > 0: the
    # reference is the policy with its adapter off
    cfg.write_text(json.dumps({"lora": True, "lora_r": 4, "lr": 1e-2, "kl": 0.02, "anchor_coef": 1.0,
                               "anchor_data": [str(CORPUS)], "anchor_batch": 2}))
    p = rl("--config", cfg, "--init", tiny_ckpt, "--out", out, "--no-feedback", "--max-steps", "1",
           "--no-eval-before", "--no-eval-after")
    assert p.returncode == 0, p.stderr[-3000:]
    assert (out / "final_adapter" / "adapter_config.json").exists()
    assert json.loads((out / "final_adapter" / "adapter_config.json").read_text())["r"] == 4
    final = out / "final"
    assert (final / "config.json").exists() and not (final / "adapter_config.json").exists()
    assert json.loads((final / "tritonrl.json").read_text())["steps"] == 1
    base = AutoModelForCausalLM.from_pretrained(str(checkpoints.resolve(tiny_ckpt)), dtype=torch.float32)
    merged = AutoModelForCausalLM.from_pretrained(str(final), dtype=torch.float32).state_dict()
    start = {k: v.clone() for k, v in base.state_dict().items()}
    expect = PeftModel.from_pretrained(base, str(out / "final_adapter")).merge_and_unload().state_dict()
    assert merged.keys() == expect.keys()
    assert all(torch.allclose(merged[k], expect[k], atol=1e-6) for k in merged)
    assert any(not torch.equal(merged[k], start[k]) for k in merged)  # the update is not empty
