"""Where trainers put checkpoints and how servers find the newest complete one.

A *run directory* (``--out`` of ``training.sft`` / ``training.rl``) holds Hugging Face checkpoint
folders. A trainer writes a checkpoint completely first, then *publishes* it by atomically
replacing ``RUN/LATEST`` (a small JSON pointer). A watcher (the language server) therefore never
sees a half-written checkpoint: until ``LATEST`` changes, the previous checkpoint is the current one.

``resolve(path)`` turns whatever a user passes as ``--model`` into a loadable folder: a run
directory (follow ``LATEST``, else ``final``), or a checkpoint folder itself.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

POINTER = "LATEST"


def publish(run_dir: str | os.PathLike, ckpt_dir: str | os.PathLike, **info) -> Path:
    """Mark `ckpt_dir` (already fully written) as the newest checkpoint of `run_dir`."""
    run, ckpt = Path(run_dir), Path(ckpt_dir)
    run.mkdir(parents=True, exist_ok=True)
    rel = os.path.relpath(ckpt.resolve(), run.resolve())
    record = {"path": rel, "time": time.time(), **info}
    tmp = run / f".{POINTER}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(record, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, run / POINTER)  # atomic on POSIX: readers see the old or the new pointer, never half
    return run / POINTER


def latest(run_dir: str | os.PathLike) -> dict | None:
    """The newest published checkpoint of `run_dir` as {"path": absolute, ...}, or None."""
    run = Path(run_dir)
    try:
        record = json.loads((run / POINTER).read_text())
    except (OSError, ValueError):
        return None
    path = (run / record.get("path", "")).resolve()
    if not is_checkpoint(path):
        return None
    return {**record, "path": str(path)}


def is_checkpoint(path: str | os.PathLike) -> bool:
    """A loadable Hugging Face model folder (full model or a PEFT adapter)."""
    p = Path(path)
    return p.is_dir() and ((p / "config.json").exists() or (p / "adapter_config.json").exists())


def meta(path: str | os.PathLike) -> dict | None:
    """The `tritonrl.json` this repo's trainers write beside a checkpoint's weights; None for other models
    (and {} when it is unreadable)."""
    f = Path(path) / "tritonrl.json"
    if not f.exists():
        return None
    try:
        return json.loads(f.read_text())
    except (OSError, ValueError):
        return {}


def prompt_form(path: str | os.PathLike) -> str:
    """How to show a problem to the checkpoint in `path`: what it was trained on. A checkpoint of this repo
    without a "prompt" entry predates canonical problems ("raw"); any other model gets "canonical" (the code
    without docstrings and comments: nothing a general model needs)."""
    m = meta(path)
    if m is None:
        return "canonical"
    return m["prompt"] if m.get("prompt") in ("raw", "canonical") else "raw"


def resolve(path: str | os.PathLike) -> Path:
    """The checkpoint folder to load for `--model PATH`: a run directory's published checkpoint,
    else its `final`, else PATH itself."""
    p = Path(path)
    rec = latest(p)
    if rec:
        return Path(rec["path"])
    if is_checkpoint(p / "final"):
        return p / "final"
    return p
