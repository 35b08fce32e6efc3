"""training.prompt_filter: keep the training prompts a policy solves sometimes (GRPO groups with a signal)."""
import json
import subprocess
import sys

from conftest import ROOT
from training.prompt_filter import keep_informative, main

ROWS = [{"pid": "a", "split": "train"}, {"pid": "b", "split": "train"}, {"pid": "c", "split": "train"},
        {"pid": "d", "split": "train"}, {"pid": "h", "split": "heldout"}]
BY_PROBLEM = {"a": ["ok", "ok"], "b": ["ok", "correctness"], "c": ["parse", "static"], "h": ["parse", "parse"]}


def test_only_prompts_solved_sometimes_are_kept_and_the_heldout_split_never_moves():
    kept, counts = keep_informative(ROWS, BY_PROBLEM)
    assert [r["pid"] for r in kept] == ["b", "h"]  # h: held out, kept whatever its rate
    assert counts == {"heldout": 1, "kept": 1, "always": 1, "never": 1, "unmeasured": 1}
    kept, _ = keep_informative(ROWS, BY_PROBLEM, keep_unmeasured=True)
    assert [r["pid"] for r in kept] == ["b", "d", "h"]


def test_cli_refuses_held_out_rates_and_unreadable_files(tmp_path, capsys):
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    held = tmp_path / "held.json"
    held.write_text(json.dumps({"split": "heldout", "by_problem": BY_PROBLEM}) + "\n")
    assert main(["--prompts", str(prompts), "--rates", str(held), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "--split train" in capsys.readouterr().err
    assert main(["--prompts", str(prompts), "--rates", str(tmp_path / "missing.json"),
                 "--out", str(tmp_path / "o.jsonl")]) == 2
    assert not (tmp_path / "o.jsonl").exists()


def test_rates_from_heldout_eval_on_the_training_split_feed_the_filter(tiny_ckpt, tmp_path):
    """End to end on the CPU: heldout_eval.py --split train samples the training rows with a checkpoint and writes
    per-problem verdicts (of the first --limit training rows only, one problem a pass); the filter reads them. The untrained tiny model
    solves nothing: every measured training row goes, and the unmeasured third one too."""
    src = [json.loads(x) for x in (ROOT / "benchmarks" / "rl_prompts_h200.jsonl").read_text().splitlines()]
    rows = [r for r in src if r["split"] == "train"][:3] + [r for r in src if r["split"] == "heldout"][:1]
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rates = tmp_path / "rates.json"
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "heldout_eval.py"), "--model", str(tiny_ckpt),
                        "--prompts", str(prompts), "--split", "train", "--limit", "2", "--rows-per-pass", "1", "--n", "2", "--max-new-tokens", "24",
                        "--device", "cpu", "--jobs", "1", "--out", str(rates), "--samples", str(tmp_path / "s.jsonl")],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    res = json.loads(rates.read_text())
    # two passes of one problem each; after the last the file is whole (not "partial")
    assert res["split"] == "train" and res["problems"] == 2 and res["samples"] == 4 and "partial" not in res
    assert "heldout_eval: 1 of 2 problems" in p.stderr and not list(tmp_path.glob("*.tmp"))
    assert sorted(res["by_problem"]) == sorted(r["pid"] for r in rows[:2])
    # every sample, with the layer and rule that refused it; the summary counts them by stage and first rule
    samples = [json.loads(x) for x in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert len(samples) == 4 and all(x["completion"] is not None and x["pid"] in res["by_problem"] for x in samples)
    failed = [x for x in samples if not x["r_correct"]]
    assert failed and all(x["rule"] and x["why"] for x in failed)
    assert sum(res["reasons"].values()) == len(failed)
    assert set(res["reasons"]) == {f'{x["stage"]}/{x["rule"]}' for x in failed}
    out = tmp_path / "filtered.jsonl"
    assert main(["--prompts", str(prompts), "--rates", str(rates), "--out", str(out)]) == 0
    assert [json.loads(x)["pid"] for x in out.read_text().splitlines()] == [rows[3]["pid"]]


def test_rates_pooled_from_a_runs_first_steps_and_an_evaluation_feed_the_filter(tmp_path):
    """benchmarks/rates_from_rollouts.py: a run's training rollouts up to MAX_STEP (the policy still its init) plus
    an evaluation's verdicts become the filter's RATES; later steps and held-out rollouts are left out."""
    import gzip
    roll = tmp_path / "rollouts.jsonl.gz"
    recs = [{"step": 0, "mode": "train", "pid": "a", "ok": True, "stage": "done"},
            {"step": 0, "mode": "train", "pid": "b", "ok": False, "stage": "correctness"},
            {"step": 1, "mode": "train", "pid": "b", "ok": True, "stage": "done"},  # after an update: left out
            {"step": 0, "mode": "heldout", "pid": "h", "ok": True, "stage": "done"}]
    with gzip.open(roll, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in recs)
    ev = tmp_path / "eval.json"
    ev.write_text(json.dumps({"split": "train", "by_problem": {"b": ["ok"], "c": ["parse", "static"]}}))
    rates, prompts, out = tmp_path / "rates.json", tmp_path / "prompts.jsonl", tmp_path / "o.jsonl"
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "rates_from_rollouts.py"), "--rollouts",
                        f"{roll}:0", "--heldout-json", str(ev), "--out", str(rates)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert json.loads(rates.read_text())["by_problem"] == {"a": ["ok"], "b": ["correctness", "ok"],
                                                            "c": ["parse", "static"]}
    prompts.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    assert main(["--prompts", str(prompts), "--rates", str(rates), "--out", str(out)]) == 0
    assert [json.loads(x)["pid"] for x in out.read_text().splitlines()] == ["b", "h"]
