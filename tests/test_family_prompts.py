"""benchmarks/family_prompts.py: an RL prompt set whose training rows are fresh problems of one family."""
import json
import subprocess
import sys

import pytest

from conftest import KERNELBENCH, ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from family_prompts import forward_source  # noqa: E402


def test_forward_source_ignores_sizes_and_formatting_but_not_the_ops():
    a = "class Model:\n    def forward(self, x):\n        return x.relu()\nbatch = 8\n"
    b = "class Model:\n    def forward(self,  x):  # c\n        return x.relu()\nbatch = 4096\n"
    c = "class Model:\n    def forward(self, x):\n        return x.sigmoid()\n"
    assert forward_source(a) == forward_source(b) != forward_source(c)
    assert forward_source("def broken(:") == "" and forward_source("x = 1") == ""


@pytest.mark.skipif(not KERNELBENCH.exists(), reason="needs KernelBench for the novelty guard")
def test_held_out_rows_stay_and_no_training_row_repeats_a_held_out_forward_or_id(tmp_path):
    base = [json.loads(x) for x in (ROOT / "benchmarks" / "rl_prompts_h128.jsonl").read_text().splitlines()]
    out = tmp_path / "p.jsonl"
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "family_prompts.py"), "--base",
                        str(ROOT / "benchmarks" / "rl_prompts_h128.jsonl"), "--family", "elementwise", "--n", "30",
                        "--seed", "3", "--kernelbench", str(KERNELBENCH), "--out", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-2000:]
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    held = [r for r in base if r["split"] == "heldout"]
    assert rows[:len(held)] == held  # the split must not move
    train = rows[len(held):]
    assert len(train) == 30 and all(r["split"] == "train" and r["family"] == "elementwise" for r in train)
    base_ids = {r["pid"] for r in base}
    held_fwd = {forward_source(r["problem"]) for r in held}
    assert not base_ids & {r["pid"] for r in train}
    assert not held_fwd & {forward_source(r["problem"]) for r in train}
    assert len({r["problem"] for r in train}) == 30
