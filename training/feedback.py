"""The feedback store: every suggestion shown to a user, and what the user did with it.

SQLite in WAL mode: the language server writes while the trainer reads; a committed row survives
kill -9 of the writer (every write is its own transaction, synchronous=FULL). Rows keep the
problem, prompt, response, code, verdict, model id and times, and the decision: `accepted` (its
edit was applied), `rejected` (dismissed or replaced by a newer job), or `ignored` (never decided).
Training reads it back as SFT samples (accepted and verified) and RL prompts (every problem asked).
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS suggestions (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    model_id TEXT,
    uri TEXT,
    class_name TEXT,
    problem TEXT NOT NULL,
    prompt TEXT,
    response TEXT,
    code TEXT,
    verdict TEXT,
    ok INTEGER NOT NULL,
    speedup REAL,
    decision TEXT NOT NULL DEFAULT 'ignored',
    decided REAL
);
CREATE INDEX IF NOT EXISTS suggestions_problem ON suggestions(problem);
"""
DECISIONS = ("accepted", "rejected", "ignored")


def default_path() -> Path:
    """Per-user default: $XDG_DATA_HOME/tritonrl/feedback.sqlite3 (~/.local/share/… without it)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "tritonrl" / "feedback.sqlite3"


class FeedbackStore:
    """A thread-safe handle on the store (one connection, serialised by a lock)."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def record_shown(self, *, problem: str, prompt: str = "", response: str = "", code: str = "",
                     verdict: Any = None, model_id: str = "", uri: str = "", class_name: str = "") -> str:
        """Log one suggestion shown to the user; returns its id."""
        d = verdict.to_dict() if hasattr(verdict, "to_dict") else (verdict or {})
        sid = uuid.uuid4().hex
        with self._lock:
            self._db.execute(
                "INSERT INTO suggestions (id, created, model_id, uri, class_name, problem, prompt, response, code, "
                "verdict, ok, speedup) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (sid, time.time(), model_id, uri, class_name, problem, prompt, response, code,
                 json.dumps(d, default=str), int(bool(d.get("ok"))), d.get("speedup")))
        return sid

    def decide(self, ids: str | list[str], decision: str, only_undecided: bool = False) -> int:
        """Set the user's decision on suggestions; returns how many rows changed."""
        if decision not in DECISIONS:
            raise ValueError(f"decision must be one of {DECISIONS}")
        ids = [ids] if isinstance(ids, str) else list(ids)
        if not ids:
            return 0
        cond = " AND decision = 'ignored'" if only_undecided else ""
        with self._lock:
            cur = self._db.execute(f"UPDATE suggestions SET decision = ?, decided = ? WHERE id IN "
                                   f"({','.join('?' * len(ids))}){cond}", (decision, time.time(), *ids))
            return cur.rowcount

    def rows(self, where: str = "1", params: tuple = ()) -> list[dict]:
        with self._lock:
            cur = self._db.execute(f"SELECT * FROM suggestions WHERE {where} ORDER BY created", params)
            cols = [c[0] for c in cur.description]
            return [dict(zip(cols, r)) for r in cur.fetchall()]


def sft_samples(path: str | Path) -> list[dict]:
    """Accepted, verified suggestions as SFT samples (problem + response), de-duplicated."""
    store = FeedbackStore(path)
    try:
        seen, out = set(), []
        for r in store.rows("decision = 'accepted' AND ok = 1"):
            key = (r["problem"], r["response"])
            if key not in seen and r["response"]:
                seen.add(key)
                out.append({"id": f"feedback-{r['id']}", "family": "feedback", "problem": r["problem"],
                            "response": r["response"], "plan": "", "candidate": r["code"]})
        return out
    finally:
        store.close()


def rl_prompts(path: str | Path) -> list[str]:
    """Every distinct problem a user asked about (RL prompts)."""
    store = FeedbackStore(path)
    try:
        return list(dict.fromkeys(r["problem"] for r in store.rows()))
    finally:
        store.close()
