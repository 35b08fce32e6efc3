"""Watch a training run directory for newly published checkpoints (watchdog).

Trainers write a checkpoint completely, then atomically replace ``RUN/LATEST``
(`training.checkpoints.publish`). The watcher only reacts to events on ``LATEST`` and only
reports a record that `training.checkpoints.latest` accepts (the folder exists and is a model), so
a half-written checkpoint is never loaded. What to do with a new checkpoint (load it in the
background, swap it in between jobs) is the server's business: see ``TritonRLServer.reload``.
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Callable

from training import checkpoints

log = logging.getLogger("tritonrl.lsp.reload")


class CheckpointWatcher:
    """Calls `on_new(record)` (from a background thread) whenever `run_dir`/LATEST names a new,
    complete checkpoint. `record` is `checkpoints.latest(run_dir)`: {"path": absolute, "time", ...}."""

    def __init__(self, run_dir: str | Path, on_new: Callable[[dict], None], debounce_s: float = 0.2):
        self.run_dir = Path(run_dir)
        self.on_new = on_new
        self.debounce_s = debounce_s
        self._seen = self._key(checkpoints.latest(self.run_dir))  # what serves at start is not "new"
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._observer = None

    @staticmethod
    def _key(rec: dict | None) -> tuple | None:
        return (rec["path"], rec.get("time")) if rec else None

    def start(self) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event) -> None:
                names = {Path(str(p)).name for p in (event.src_path, getattr(event, "dest_path", "")) if p}
                if checkpoints.POINTER in names:
                    watcher._schedule()

        self._observer = Observer()
        self._observer.daemon = True
        self._observer.schedule(_Handler(), str(self.run_dir), recursive=False)
        self._observer.start()
        log.info("watching %s for new checkpoints", self.run_dir)

    def stop(self) -> None:
        if self._timer:
            self._timer.cancel()
        if self._observer is not None:
            self._observer.stop()
            self._observer = None

    def _schedule(self) -> None:
        """Coalesce a burst of events (create tmp, rename) into one check."""
        with self._lock:
            if self._timer:
                self._timer.cancel()
            self._timer = threading.Timer(self.debounce_s, self.check)
            self._timer.daemon = True
            self._timer.start()

    def check(self) -> None:
        """Report LATEST if it names a complete checkpoint not reported before."""
        rec = checkpoints.latest(self.run_dir)
        if rec is None:
            log.info("%s/LATEST names no complete checkpoint (yet)", self.run_dir)
            return
        with self._lock:
            if self._key(rec) == self._seen:
                return
            self._seen = self._key(rec)
        try:
            self.on_new(rec)
        except Exception:
            log.exception("new checkpoint handler")
