"""benchmarks/heldout_compare.py: per-problem moves of held-out evaluations against the start."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("heldout_compare", ROOT / "benchmarks" / "heldout_compare.py")
hc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hc)


def _write(path: Path, seed: int, counts: dict[str, int]) -> str:
    by = {k: ["ok"] * c + ["correctness"] * (4 - c) for k, c in counts.items()}
    path.write_text(json.dumps({"seed": seed, "by_problem": by}) + "\n")
    return str(path)


def test_sign_test_matches_the_binomial():
    assert hc.sign_test(0, 0) == 1.0
    assert hc.sign_test(0, 5) == pytest.approx(2 / 32)  # all five moves one way
    assert hc.sign_test(3, 3) == 1.0
    assert hc.sign_test(2, 10) == pytest.approx(2 * (1 + 12 + 66) / 4096)


def test_table_counts_moves_per_problem_over_seeds(tmp_path):
    start = _write(tmp_path / "s0.json", 0, {"a": 4, "b": 2, "c": 0})
    start1 = _write(tmp_path / "s1.json", 1, {"a": 3, "b": 1, "c": 0})
    after = _write(tmp_path / "r0.json", 0, {"a": 4, "b": 1, "c": 1})
    after1 = _write(tmp_path / "r1.json", 1, {"a": 2, "b": 0, "c": 0})
    out = tmp_path / "t.md"
    hc.main([f"start={start},{start1}", f"rl={after},{after1}", "--out", str(out)])
    rows = out.read_text().splitlines()
    assert rows[2].startswith("| start | 10/24 | 0.417 |  |  | `420310` |")
    # a@0 same, b@0 down, c@0 up, a@1 down, b@1 down, c@1 same: 1 up, 3 down
    assert rows[3] == f"| rl | 8/24 | 0.333 | 1 / 3 | {hc.sign_test(1, 3):.3f} | `411200` |"


def test_a_run_missing_problems_is_refused(tmp_path):
    start = _write(tmp_path / "s.json", 0, {"a": 4, "b": 2})
    partial = _write(tmp_path / "p.json", 0, {"a": 4})
    with pytest.raises(SystemExit, match="lacks 1 of the start's problems"):
        hc.main([f"start={start}", f"partial={partial}"])


def test_pids_keep_or_leave_out_the_listed_problems(tmp_path):
    """--pids: the problems an RL run trained on; --invert: the rest (the same evaluation, split in two)."""
    start = _write(tmp_path / "s.json", 0, {"a": 4, "b": 2, "c": 0})
    after = _write(tmp_path / "r.json", 0, {"a": 3, "b": 4, "c": 1})
    pids = tmp_path / "pids.txt"
    pids.write_text("b\nc\n")
    seen, unseen = tmp_path / "seen.md", tmp_path / "unseen.md"
    hc.main([f"start={start}", f"rl={after}", "--pids", str(pids), "--out", str(seen)])
    hc.main([f"start={start}", f"rl={after}", "--pids", str(pids), "--invert", "--out", str(unseen)])
    assert seen.read_text().splitlines()[3].startswith("| rl | 5/8 | 0.625 | 2 / 0 |")
    assert unseen.read_text().splitlines()[3].startswith("| rl | 3/4 | 0.750 | 0 / 1 |")
    pids.write_text("zzz\n")
    with pytest.raises(SystemExit, match="no problem of the start"):
        hc.main([f"start={start}", f"rl={after}", "--pids", str(pids)])
