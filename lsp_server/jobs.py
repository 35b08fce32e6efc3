"""The language server's jobs: one per (document, class) at a time, cancellable, and what they found."""
from __future__ import annotations

import concurrent.futures
import threading
from dataclasses import dataclass, field


class JobCancelled(Exception):
    """The user cancelled the job; raised at the next boundary (before generating / verifying)."""


@dataclass
class Job:
    uri: str
    class_name: str
    cancel: threading.Event = field(default_factory=threading.Event)
    done: concurrent.futures.Future = field(default_factory=concurrent.futures.Future)  # -> how it ended
    token: str | None = None       # its work-done progress token
    offered: int = 0               # verified kernels offered so far (offered as each verifies)

    def check(self) -> None:
        if self.cancel.is_set():
            raise JobCancelled()


@dataclass
class JobResult:
    uri: str
    class_name: str
    version: int | None            # the document version the job started from
    verified: list                 # training.suggest.Candidate, best first
    ids: list = field(default_factory=list)  # their rows in the feedback store ('' when not logged)


@dataclass
class JobTable:
    """Jobs in flight and the results of finished ones, shared by the event loop and the job threads."""

    running: dict = field(default_factory=dict)       # (uri, class) -> Job in flight
    by_token: dict = field(default_factory=dict)      # progress token -> Job
    results: dict = field(default_factory=dict)       # (uri, class) -> JobResult
    lock: threading.Lock = field(default_factory=threading.Lock)
