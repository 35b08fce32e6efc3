"""benchmarks/rft_from_rollouts.py: verified rollouts of mixed groups as SFT samples, never a held-out prompt."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))  # its rl_report import, as when run as a script
_spec = importlib.util.spec_from_file_location("rft", ROOT / "benchmarks" / "rft_from_rollouts.py")
rft = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rft)

PROMPTS = [{"pid": "a", "problem": "PA", "split": "train", "family": "ew"},
           {"pid": "b", "problem": "PB", "split": "train", "family": "mm"},
           {"pid": "h", "problem": "PH", "split": "heldout", "family": "mm"}]


def roll(step, pid, ok, text):
    return {"step": step, "pid": pid, "ok": ok, "completion": text, "mode": "train"}


def test_keeps_right_unique_completions_of_mixed_groups():
    rollouts = [roll(0, "a", True, "x"), roll(0, "a", True, "x"), roll(0, "a", False, "y"), roll(0, "a", None, "z"),
                roll(0, "b", True, "u"), roll(0, "b", True, "v"),          # all right: no signal
                roll(1, "b", True, "u"), roll(1, "b", False, "w")]         # the same text again, a later step
    got = rft.rft_samples(rollouts, PROMPTS)
    assert [(r["pid"], r["response"], r["problem"]) for r in got] == [("a", "x", "PA"), ("b", "u", "PB")]
    every = rft.rft_samples(rollouts, PROMPTS, all_groups=True)
    assert [(r["pid"], r["response"]) for r in every] == [("a", "x"), ("b", "u"), ("b", "v")]


def test_a_held_out_prompt_is_refused():
    with pytest.raises(SystemExit, match="never train on it"):
        rft.rft_samples([roll(0, "h", True, "x"), roll(0, "h", False, "y")], PROMPTS)
