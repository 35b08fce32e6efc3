"""The feedback report the VS Code extension opens: a real store written by FeedbackStore, read back."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT
from training.feedback import FeedbackStore
from training.feedback_report import report


def test_report_counts_and_lists_newest_first(tmp_path):
    db = tmp_path / "fb.sqlite3"
    store = FeedbackStore(db)
    a = store.record_shown(problem="p", code="c", verdict={"ok": True, "stage": "correctness", "speedup": 1.5},
                           model_id="m1", uri="file:///x/mod.py", class_name="First")
    store.record_shown(problem="p", verdict={"ok": False, "stage": "static"}, model_id="m|2", class_name="Second")
    store.decide(a, "accepted")
    store.close()
    text = report(db)
    assert "2 suggestion(s) shown: 1 accepted, 0 rejected, 1 ignored" in text
    lines = [ln for ln in text.splitlines() if ln.startswith("| 2")]
    assert len(lines) == 2 and "Second" in lines[0] and "First" in lines[1]
    assert "failed (static)" in lines[0] and "m\\|2" in lines[0]
    assert "verified" in lines[1] and "1.50×" in lines[1] and "accepted" in lines[1] and "mod.py" in lines[1]


def test_cli_missing_store_is_a_message(tmp_path):
    r = subprocess.run([sys.executable, "-m", "training.feedback_report", "--db", str(tmp_path / "none.sqlite3")],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "no feedback store at" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "none.sqlite3").exists()
