"""The feedback store: WAL, durable under kill -9, readable while written, and read back for training."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

from conftest import ROOT
from training.feedback import FeedbackStore, default_path, rl_prompts, sft_samples


def test_records_decisions_and_training_views(tmp_path):
    db = tmp_path / "fb.sqlite3"
    s = FeedbackStore(db)
    ok = {"ok": True, "stage": "done", "speedup": 1.8}
    a = s.record_shown(problem="P1", prompt="p", response="R1", code="C1", verdict=ok, model_id="m", class_name="A")
    b = s.record_shown(problem="P1", response="R2", code="C2", verdict=ok)
    c = s.record_shown(problem="P2", response="R3", code="C3", verdict={"ok": False, "stage": "correctness"})
    assert s.decide(a, "accepted") == 1 and s.decide([b, c], "rejected") == 2
    assert s.decide(a, "rejected", only_undecided=True) == 0  # a decision is not overwritten by a replacement
    rows = {r["id"]: r for r in s.rows()}
    assert rows[a]["decision"] == "accepted" and rows[a]["speedup"] == 1.8 and json.loads(rows[a]["verdict"])["ok"]
    s.close()
    assert [x["response"] for x in sft_samples(db)] == ["R1"]
    assert rl_prompts(db) == ["P1", "P2"]
    assert sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_default_path_is_per_user(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_path() == tmp_path / "tritonrl" / "feedback.sqlite3"


WRITER = """
import sys, time
sys.path.insert(0, {root!r})
from training.feedback import FeedbackStore
s = FeedbackStore({db!r})
i = 0
while True:
    s.record_shown(problem=f"P{{i}}", response="R", verdict={{"ok": True}})
    i += 1
    if i == 50:
        print("50", flush=True)
"""


def test_survives_kill_9_and_reads_while_writing(tmp_path):
    db = tmp_path / "fb.sqlite3"
    p = subprocess.Popen([sys.executable, "-c", WRITER.format(root=str(ROOT), db=str(db))], stdout=subprocess.PIPE,
                         text=True)
    assert p.stdout.readline().strip() == "50"
    reader = FeedbackStore(db)             # the trainer reads while the server writes
    n1 = len(reader.rows())
    time.sleep(0.2)
    n2 = len(reader.rows())
    assert 50 <= n1 <= n2
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    after = FeedbackStore(db)
    assert len(after.rows()) >= n2          # nothing committed was lost
    assert after.record_shown(problem="again")  # and the file is still writable
