"""`python -m training.feedback_report [--db PATH] [--limit N]`: the feedback store as a Markdown report.

What the VS Code extension's "Open the feedback log" shows: counts per decision and the latest
suggestions (time, class, model, verdict, decision), newest first. Read-only; a missing store is
reported, not created.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path

from training.feedback import DECISIONS, default_path


def _cell(v) -> str:
    return str(v if v not in (None, "") else "—").replace("|", "\\|").replace("\n", " ")


def report(path: Path, limit: int = 50) -> str:
    """Markdown for the store at `path` (raises FileNotFoundError when there is none)."""
    if not path.exists():
        raise FileNotFoundError(f"no feedback store at {path} yet (it is written when a verified kernel is shown)")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        counts = dict(db.execute("SELECT decision, COUNT(*) FROM suggestions GROUP BY decision").fetchall())
        rows = db.execute("SELECT created, class_name, model_id, verdict, ok, speedup, decision, uri FROM suggestions "
                          "ORDER BY created DESC LIMIT ?", (limit,)).fetchall()
    finally:
        db.close()
    total = sum(counts.values())
    out = [f"# TritonRL feedback log", "", f"Store: `{path}`", "",
           f"{total} suggestion(s) shown: " + ", ".join(f"{counts.get(d, 0)} {d}" for d in DECISIONS), ""]
    if not rows:
        return "\n".join(out + ["Nothing recorded yet."]) + "\n"
    out += [f"Latest {len(rows)}, newest first:", "",
            "| shown (UTC) | class | model | verdict | speedup | decision | file |",
            "|---|---|---|---|---|---|---|"]
    for created, cls, model, verdict, ok, speedup, decision, uri in rows:
        try:
            stage = json.loads(verdict or "{}").get("stage", "")
        except ValueError:
            stage = ""
        v = "verified" if ok else f"failed ({stage})" if stage else "failed"
        sp = f"{speedup:.2f}×" if isinstance(speedup, (int, float)) else ""
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(created))
        out.append("| " + " | ".join(_cell(x) for x in (when, cls, model, v, sp, decision,
                                                          (uri or "").rsplit("/", 1)[-1])) + " |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.feedback_report", description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="the store (default: the per-user store the language server writes)")
    ap.add_argument("--limit", type=int, default=50, help="how many of the latest suggestions to list")
    a = ap.parse_args(argv)
    path = Path(a.db) if a.db else default_path()
    try:
        sys.stdout.write(report(path, max(1, a.limit)))
    except (FileNotFoundError, sqlite3.Error) as e:
        print(f"TritonRL feedback log: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
