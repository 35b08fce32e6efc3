"""`training.rl` under `accelerate launch` with two CPU processes (gloo): the data-parallel path end to
end with the real verifier (per-rank rollouts, sharded held-out evaluation, one final save and
publish, resume), each rank's advantages computed over all ranks' rewards and sliced back to its own
completions, the batch/num_generations check, and the cross-rank stop decision of TimeLimit.

Only `test_each_rank_gets_the_advantages_of_its_own_completions` replaces the verifier
(`tests/files/rl_fake_verdicts.py`): what it tests is the gather-and-slice of rewards, which an
untrained policy cannot exercise (every completion fails to parse, so every reward and advantage
is 0 and a wrong slice looks like a right one). The end-to-end test runs the real verifier."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from conftest import ROOT
from training import checkpoints, hrd

pytest.importorskip("accelerate")

CORPUS = ROOT / "data" / "corpus_tiny.jsonl"
CPU_2PROC = ROOT / "training" / "configs" / "accelerate_cpu_2proc.yaml"


def launch(*args):
    """`accelerate launch --config_file accelerate_cpu_2proc.yaml ARGS` with this interpreter."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(CPU_2PROC),
                        *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    # whole, in pytest's captured output of a failing test: an assertion message shows only their tails, and the
    # first line of a rank's crash is what tells a gloo abort from a Python error
    print(f"--- launch {' '.join(map(str, args))}: rc {p.returncode}\n{p.stdout}", file=sys.stdout)
    print(p.stderr, file=sys.stderr)
    return p


def rows(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_two_cpu_processes_train_log_per_rank_and_publish_once(tiny_ckpt, tmp_path):
    out = tmp_path / "rl"
    p = launch("-m", "training.rl", "--config", "tiny", "--init", tiny_ckpt, "--out", out, "--no-feedback",
               "--max-steps", "2")
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-4000:])
    assert "2 processes" in p.stdout

    # each rank logged its own rollouts: 2 steps × its 4 completions (one prompt group per rank)
    r0, r1 = rows(out / "rollouts.jsonl"), rows(out / "rollouts.rank1.jsonl")
    assert len(r0) == len(r1) == 2 * 4
    assert {r["rank"] for r in r0} == {0} and {r["rank"] for r in r1} == {1}
    for step in (0, 1):
        p0 = {r["pid"] for r in r0 if r["step"] == step}
        p1 = {r["pid"] for r in r1 if r["step"] == step}
        assert len(p0) == len(p1) == 1 and p0 != p1  # different prompts on the two ranks

    # one final checkpoint; its held-out rate did not fall, so a copy is published once (by rank 0) to LATEST
    latest = checkpoints.latest(out)
    assert latest and latest["path"] == str((out / "published-step-2").resolve()) and latest["step"] == 2
    assert checkpoints.is_checkpoint(out / "final")
    assert json.loads((out / "final" / "tritonrl.json").read_text())["steps"] == 2
    assert p.stdout.count("rl: published published-step-2") == 1
    assert "rl: published checkpoint-" not in p.stdout
    assert not list(out.glob(".LATEST.*")) and not list(out.glob("*.tmp"))

    # the held-out evaluation ran once before and once after, over all held-out problems (split over ranks)
    held = rows(out / "heldout.jsonl")
    assert [h["tag"] for h in held] == ["before", "after"]
    assert all(h["problems"] == 2 and h["samples"] == 2 * 2 for h in held)
    assert [h["step"] for h in held] == [0, 2]
    assert len(rows(out / "prompts.jsonl")) == 6 + 2
    hist = json.loads((out / "log_history.json").read_text())
    assert any("hrd/correct_rate" in h for h in hist)
    assert (out / "curves.png").stat().st_size > 1000

    # as after a kill: a second launch with a larger budget resumes from checkpoint-2 on both ranks
    p = launch("-m", "training.rl", "--config", "tiny", "--init", tiny_ckpt, "--out", out, "--no-feedback",
               "--max-steps", "3")
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-4000:])
    r0, r1 = rows(out / "rollouts.jsonl"), rows(out / "rollouts.rank1.jsonl")
    assert [r["step"] for r in r0] == [r["step"] for r in r1] == [0] * 4 + [1] * 4 + [2] * 4
    assert [h["tag"] for h in rows(out / "heldout.jsonl")] == ["before", "after", "after"]
    assert json.loads((out / "final" / "tritonrl.json").read_text())["steps"] == 3
    assert checkpoints.latest(out)["step"] == 3 and p.stdout.count("rl: published published-step-3") == 1


def test_each_rank_gets_the_advantages_of_its_own_completions(tiny_ckpt, tmp_path):
    """A prompt group split over the ranks (2 completions per rank, 4 per group) with made-up verdicts
    that differ between ranks: each rank's logged advantages equal the group-normalised advantages of
    the gathered rewards (rank 0's rows, then rank 1's) at that rank's rows."""
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"batch": 2, "num_generations": 4, "heldout": 0, "max_steps": 2, "save_steps": 2}))
    out = tmp_path / "rl"
    p = launch(ROOT / "tests" / "files" / "rl_fake_verdicts.py", "--config", cfg, "--init", tiny_ckpt,
               "--out", out, "--no-feedback", "--publish", "every")  # no held-out split to gate on
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-4000:])
    r0, r1 = rows(out / "rollouts.jsonl"), rows(out / "rollouts.rank1.jsonl")
    assert len(r0) == len(r1) == 2 * 2
    for step in (0, 1):
        mine = [r for r in r0 if r["step"] == step], [r for r in r1 if r["step"] == step]
        group = mine[0] + mine[1]
        assert len({r["pid"] for r in group}) == 1  # one prompt, its 4 completions on 2 ranks
        assert [r["ok"] for r in group] == [True, False, False, True]  # (index + rank) even
        a_code = hrd.group_advantages(torch.tensor([r["r_correct"] for r in group]), 4, "group")
        a_plan = hrd.group_advantages(torch.tensor([r["r_speedup"] for r in group]), 4, "group")
        for i, r in enumerate(group):
            assert r["a_code"] == pytest.approx(float(a_code[i]), abs=1e-3)
            assert r["a_plan"] == pytest.approx(float(a_plan[i]), abs=1e-3)
        # a rank's slice is not the other's: the correct ones are rank 0's first and rank 1's second
        assert mine[0][0]["a_code"] > 0 > mine[0][1]["a_code"] and mine[1][0]["a_code"] < 0 < mine[1][1]["a_code"]
    assert checkpoints.latest(out)["path"].endswith("final")


# ---------------------------------------------------------------- the batch check

def test_batch_error_names_the_config_terms():
    from training.rl import CONFIGS, batch_error

    assert batch_error(CONFIGS["tiny"], 1) is None and batch_error(CONFIGS["tiny"], 2) is None
    assert batch_error(CONFIGS["small"], 8) is None
    assert batch_error(dict(CONFIGS["tiny"], batch=2), 2) is None  # a prompt group split over two ranks
    msg = batch_error(dict(CONFIGS["tiny"], batch=3), 2)
    assert "batch 3 × 2 processes × grad_accum 1 = 6" in msg and "num_generations 4" in msg
    assert "batch of 2 or 4 or 6" in msg
    assert "at least 2" in batch_error(dict(CONFIGS["tiny"], num_generations=1), 1)


def test_a_batch_that_does_not_fit_the_processes_is_one_clear_message(tmp_path):
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"batch": 3, "num_generations": 4}))
    p = launch("-m", "training.rl", "--config", cfg, "--init", tmp_path / "never-read", "--out", tmp_path / "rl",
               "--no-feedback")
    assert p.returncode != 0
    assert "batch 3 × 2 processes × grad_accum 1 = 6 completions per generation step" in p.stderr
    assert "GRPOConfig" not in p.stderr and "ValueError" not in p.stderr  # not TRL's traceback
    assert not (tmp_path / "rl").exists()


# ---------------------------------------------------------------- the local slice, held-out split, TimeLimit

def test_local_slice_check_rejects_another_ranks_rewards():
    from types import SimpleNamespace

    from training.rl import _make_trainer_class

    check = _make_trainer_class()._check_local_slice
    me = SimpleNamespace(verifier_reward=SimpleNamespace(last={"r_correct": [1.0, 0.0], "r_speedup": [2.0, None]}),
                         accelerator=SimpleNamespace(process_index=1))
    gathered = torch.tensor([[0.0, 0.0], [0.0, 0.0], [1.0, 2.0], [0.0, float("nan")]])  # rank 0's, then rank 1's
    check(me, gathered, 2, 2)  # rank 1's rows: fine
    with pytest.raises(RuntimeError, match="rank 1: rewards \\[0:2\\]"):
        check(me, gathered, 0, 2)


def test_heldout_samples_do_not_depend_on_the_split_over_ranks(tiny_ckpt):
    """Every (row, sample) has its own seed and the rows are generated in one batch: rank 1's share
    alone gives the same completions as a single process sampling every row, so the distributed
    before/after numbers are the single-process ones."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from training.rl import _heldout_samples, _verify_config, build_prompt_set

    tok = AutoTokenizer.from_pretrained(str(tiny_ckpt))
    model = AutoModelForCausalLM.from_pretrained(str(tiny_ckpt))
    held = [r for r in build_prompt_set(2, 2, seed=7001, log=lambda *_: None) if r["split"] == "heldout"]
    cfg = _verify_config("cpu", 2)
    every = _heldout_samples(model, tok, list(enumerate(held)), cfg, 2, 24, 1.0, 2, seed=0)
    rng = torch.get_rng_state()
    rank1 = _heldout_samples(model, tok, [(1, held[1])], cfg, 2, 24, 1.0, 2, seed=0)
    assert torch.equal(rng, torch.get_rng_state())  # training's RNG is left alone
    assert len(every) == 4 and [x["pid"] for x in every] == [held[0]["pid"]] * 2 + [held[1]["pid"]] * 2
    assert len({x["completion"] for x in every}) > 1  # sampled, not one fixed string
    assert [x["completion"] for x in rank1] == [x["completion"] for x in every[2:]]


def _time_limit_rank(rank, init_file, out_dir):
    import time

    import torch.distributed as dist
    from transformers import TrainerControl

    from training.callbacks import TimeLimit

    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=2)
    try:
        tl = TimeLimit(minutes=1)
        tl.t0 = time.time() - (120 if rank == 1 else 0)  # only rank 1 is over the limit
        c = tl.on_step_end(None, None, TrainerControl())
        tl.t0 = time.time()  # nobody over: nobody stops
        again = tl.on_step_end(None, None, TrainerControl()).should_training_stop
        (Path(out_dir) / f"rank{rank}.json").write_text(json.dumps([c.should_training_stop, c.should_save, again]))
    finally:
        dist.destroy_process_group()


def test_time_limit_stops_every_rank_when_one_is_over(tmp_path):
    """Two gloo processes, only one over the time limit: both stop (and save) at the same step."""
    import torch.multiprocessing as mp

    import training.callbacks  # noqa: F401  (imported before the fork: transformers takes seconds to import)

    mp.start_processes(_time_limit_rank, args=(str(tmp_path / "rdzv"), str(tmp_path)), nprocs=2, join=True,
                       start_method="fork")
    assert [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)] == [[True, True, False]] * 2


def test_time_limit_until_a_wall_clock_time():
    """`until` stops training at an absolute time even before `minutes` since train() have passed."""
    import time

    from transformers import TrainerControl

    from training.callbacks import TimeLimit

    tl = TimeLimit(minutes=60, until=time.time() + 3600)
    tl.t0 = time.time()
    assert not tl.on_step_end(None, None, TrainerControl()).should_training_stop
    tl.until = time.time() - 1
    c = tl.on_step_end(None, None, TrainerControl())
    assert c.should_training_stop and c.should_save
    only_until = TimeLimit(until=time.time() - 1)  # no minutes at all
    assert only_until.on_step_end(None, None, TrainerControl()).should_training_stop


def test_time_limit_stops_before_a_step_that_would_end_past_the_limit():
    """A step took 50 s and 30 s are left before `until`: the next one would end past it, so stop now, and
    with the same time left after a 5 s step, go on."""
    import time

    from transformers import TrainerControl

    from training.callbacks import TimeLimit

    tl = TimeLimit(until=time.time() + 30)
    tl.t0 = tl.last_end = time.time() - 50
    assert tl.on_step_end(None, None, TrainerControl()).should_training_stop
    tl = TimeLimit(until=time.time() + 30)
    tl.t0 = tl.last_end = time.time() - 5
    assert not tl.on_step_end(None, None, TrainerControl()).should_training_stop
    by_minutes = TimeLimit(minutes=1)  # 40 s in, the last step 35 s long: the next one would end at 75 s
    by_minutes.t0, by_minutes.last_end = time.time() - 40, time.time() - 35
    assert by_minutes.on_step_end(None, None, TrainerControl()).should_training_stop
