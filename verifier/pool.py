"""Sandboxed workers, started ahead of need.

A worker is one fresh sandbox running `verifier.worker_reference` or `verifier.worker_candidate`.
It warms up (imports torch and Triton, creates the CUDA context, builds Triton's driver helpers —
trusted work, before any job exists), says W, and waits. The supervisor writes the job into its
private dir, links the reference's inputs into its read-only inbox, and says J. Every worker runs
exactly one job and is then killed with its whole tree, so pooling hides start-up latency without
letting one verification touch another.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import select
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import astuple
from pathlib import Path

from . import sandbox

INBOX = "/sandbox/inbox"


# bwrap --die-with-parent ties each sandbox to the *thread* that started it (PR_SET_PDEATHSIG):
# every sandbox is therefore started from this one long-lived thread, never from a short-lived one.
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tritonrl-spawner")


def spawn(kind: str, device: str, limits: sandbox.Limits, base_dir: str | None = None) -> "Worker":
    """Start a worker from the spawner thread (safe to call from any thread)."""
    return _SPAWNER.submit(Worker, kind, device, limits, base_dir).result()


class Worker:
    """One sandboxed worker process and its handshake pipes. Create it with `spawn`."""

    def __init__(self, kind: str, device: str, limits: sandbox.Limits, base_dir: str | None = None):
        self.kind, self.device = kind, device
        self.dir = Path(tempfile.mkdtemp(prefix=f"tritonrl-{kind}-", dir=base_dir))
        self.work, self.inbox = self.dir / "work", self.dir / "inbox"
        self.work.mkdir()
        self.inbox.mkdir()
        self.r_ready, w_ready = os.pipe()
        r_go, self.w_go = os.pipe()
        inside = sandbox.isolation_mechanism()[0] == "bwrap"
        env = {"TRITONRL_CONTROL": f"{w_ready},{r_go}", "TRITONRL_DEVICE": device,
               "TRITONRL_INBOX": INBOX if inside else str(self.inbox)}
        argv = [sys.executable, "-m", f"verifier.worker_{kind}", "job.json"]
        self.box = sandbox.Sandbox(argv, self.work, device=device, limits=limits, env=env,
                                   ro_binds={INBOX: self.inbox}, pass_fds=(w_ready, r_go)).start()
        os.close(w_ready)
        os.close(r_go)
        self.isolation = self.box.isolation
        self.warm = False
        self.closed = False

    def alive(self) -> bool:
        return self.box.proc is not None and self.box.proc.poll() is None

    def dispatch(self, job_json: str, files: dict[str, str] | None = None, inbox: dict[str, Path] | None = None):
        """Hand the worker its job: files into its private dir, read-only inputs into its inbox."""
        for name, text in (files or {}).items():
            (self.work / name).write_text(text)
        for name, src in (inbox or {}).items():
            try:
                os.link(src, self.inbox / name)
            except OSError:  # another filesystem: copy
                shutil.copyfile(src, self.inbox / name)
        (self.work / "job.json").write_text(job_json)
        self.send(b"J")

    def wait_message(self, timeout: float) -> bytes | None:
        """The worker's next message other than W, or None if it exits or the time runs out."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.r_ready], [], [], min(left, 0.2))
            if r:
                b = os.read(self.r_ready, 1)
                if b == b"W":
                    self.warm = True
                    continue
                return b or None
            if not self.alive():
                return None

    def wait_warm(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self.warm and self.alive() and time.monotonic() < deadline:
            r, _, _ = select.select([self.r_ready], [], [], 0.2)
            if r:
                self.warm = os.read(self.r_ready, 1) == b"W"
        return self.warm

    def send(self, msg: bytes) -> None:
        try:
            os.write(self.w_go, msg)
        except OSError:
            pass

    def finish(self, timeout: float) -> sandbox.SandboxResult:
        """Wait for the worker to end (killing its tree at the latest after `timeout`)."""
        return self.box.wait(timeout)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.box.kill()
        if self.box.proc is not None:
            self.box.proc.wait()
        for fd in (self.r_ready, self.w_go):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


class WorkerPool:
    """Keeps `size` warm workers per (kind, device, limits); hands each out once."""

    def __init__(self):
        self._idle: dict[tuple, list[Worker]] = {}
        self._lock = threading.Lock()
        self._unpaused = threading.Event()  # cleared while a caller holds `paused()`: no refills start
        self._unpaused.set()
        self._pauses = 0

    def get(self, kind: str, device: str, limits: sandbox.Limits, size: int, base_dir: str | None = None) -> Worker:
        key = (kind, device, astuple(limits), base_dir)
        with self._lock:
            idle = self._idle.setdefault(key, [])
            while idle:
                w = idle.pop(0)
                if w.alive():
                    break
                w.close()
            else:
                w = None
        if w is None:
            w = spawn(kind, device, limits, base_dir)
        threading.Thread(target=self._top_up, args=(key, kind, device, limits, size, base_dir), daemon=True).start()
        return w

    def _top_up(self, key, kind, device, limits, size, base_dir) -> None:
        while True:
            self._unpaused.wait()
            with self._lock:
                if len(self._idle.get(key, [])) >= size:
                    return
            w = spawn(kind, device, limits, base_dir)
            with self._lock:
                self._idle.setdefault(key, []).append(w)

    def prewarm(self, kind: str, device: str, limits: sandbox.Limits, size: int, base_dir: str | None = None,
                timeout: float = 120.0, wait: bool = True) -> None:
        """Start `size` workers now and wait until they are warm (for services and benchmarks). `wait=False`
        only starts them: whoever next waits on them (`paused`, a job) reads their ready pipes, and no other
        thread does meanwhile."""
        key = (kind, device, astuple(limits), base_dir)
        self._top_up(key, kind, device, limits, size, base_dir)
        if not wait:
            return
        with self._lock:
            ws = list(self._idle.get(key, []))
        for w in ws:
            w.wait_warm(timeout)

    @contextlib.contextmanager
    def paused(self, settle_s: float = 60.0):
        """Hold back refills while the caller does latency-bound work of its own (a trainer's generation).

        A refill is a sandbox importing torch and Triton and creating a CUDA context: a dozen of them
        starting during generation took a small policy from ~60 ms to ~300 ms per decode step on the
        H200 (benchmarks/results/rl_small_h200.md). Workers already starting are first given up to
        `settle_s` to become warm, so none is still warming once the caller's work begins. `get` keeps
        working while paused (a caller that verifies anyway gets a freshly started worker). Enter it with
        no verification of this pool in flight: it reads the idle workers' ready pipes."""
        with self._lock:
            self._pauses += 1
            self._unpaused.clear()
        deadline = time.monotonic() + settle_s
        for _ in range(2):  # twice: a refill that passed its check just before the pause lands once more
            with self._lock:
                starting = [w for ws in self._idle.values() for w in ws if not w.warm]
            for w in starting:
                w.wait_warm(max(0.0, deadline - time.monotonic()))
        try:
            yield
        finally:
            with self._lock:
                self._pauses -= 1
                if self._pauses == 0:
                    self._unpaused.set()

    def shutdown(self) -> None:
        with self._lock:
            ws = [w for lst in self._idle.values() for w in lst]
            self._idle.clear()
        for w in ws:
            w.close()


POOL = WorkerPool()
atexit.register(POOL.shutdown)
