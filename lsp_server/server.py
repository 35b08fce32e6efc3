"""The TritonRL language server: code actions that turn an nn.Module into a verified Triton kernel.

A thin adapter over `training` (extraction, backends, the suggest pipeline) and `verifier`:

* ``textDocument/codeAction`` — inside any nn.Module class (found with `training.extract.modules_in`,
  which tolerates syntax errors elsewhere in the file) the server offers "Generate Triton kernel for
  <Class>" (kind ``refactor.rewrite.tritonrl``, command ``tritonrl.generate``). Listing actions is
  cheap: it never loads or runs the model.
* ``workspace/executeCommand tritonrl.generate [uri, class, version]`` — starts a background job (a
  thread) on the document text as it was when asked, with work-done progress, one job per
  (uri, class) at a time. The model backend is loaded when the server starts (setting ``warmStart``,
  default on: in a background thread once ``initialized`` has read the settings, again when the model
  setting changes; on a GPU the verifier's sandboxes are started too), else by the first job; a job that
  comes while it loads waits for it. A load failure is shown to the user (a warning at start, an error from
  the job that needed the model, which loads again) and the server keeps running.
* When a job ends with verified candidates they become code actions on that class: "Apply verified
  Triton kernel (<label>, p/r trials)", best first, up to three, and "Reject Triton suggestions"
  (``tritonrl.reject``). When none verified, a message lists each candidate's failing layer.

Where the kernel goes: applying writes a *sibling file* ``<stem>_triton.py`` (a ``CreateFile`` plus a
text edit in the WorkspaceEdit) holding the candidate's full code (`ModelNew`, the kernels and their
imports). We do not rewrite the user's class in place: the user's module stays intact (it is the
reference the kernel was verified against, and other code may import it), the kernel file is an
importable module the user can wire in with one import, and the edit does not depend on the
document's text — so it is still valid when the document changed while the job ran (the apply
command then only warns; see ``tritonrl.apply``).

Each apply action also carries the command ``tritonrl.apply [uri, class, version]``, which the
client runs after applying the edit; it compares the document's version with the version the job
started from and says so when they differ (the kernel was verified against the older text).

Cancelling: the job's progress is cancellable (``window/workDoneProgress/cancel``); so is a
``tritonrl.generate`` request sent with the option ``{"wait": true}`` (it answers when the job ends,
and ``$/cancelRequest`` cancels the job), and ``tritonrl.cancel [uri, class]``. A cancelled job stops
at the next boundary (before generating, before verifying), reports "cancelled" and shows nothing.

Model reload: with ``--model RUN`` (a training run directory) the server watches ``RUN/LATEST``
(lsp_server/reload.py); a newly published checkpoint is loaded in a background thread and serves
from the next job on (a running job keeps its model); the client gets a message and the
notification ``tritonrl/modelChanged`` {model_id, path, step?}. A failed load keeps the old model.

Settings (lsp_server/settings.py): command line, then initializationOptions, then the client's
``workspace/configuration`` section ``tritonrl``, read again on ``workspace/didChangeConfiguration``.
``tritonrl.generate`` waits for the first read (started by ``initialized``) so that a job asked for
right after start-up runs with the client's settings, not the defaults; listing code actions never waits.

Layout: this module is the behaviour; lsp_server/features.py wires LSP messages to it;
lsp_server/jobs.py holds the job records; lsp_server/reload.py the checkpoint watcher.
"""
from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
import traceback
import uuid
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlparse, urlunparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from training import checkpoints
from training.extract import ExtractError, NeedsInputs, modules_in

from .jobs import Job, JobCancelled, JobResult, JobTable
from .protocol import TritonRLProtocol
from .reload import CheckpointWatcher
from .settings import SECTION, Settings

__all__ = ["Settings", "TritonRLServer", "sibling_uri"]

log = logging.getLogger("tritonrl.lsp")

KIND = "refactor.rewrite.tritonrl"
CMD_GENERATE = "tritonrl.generate"
CMD_APPLY = "tritonrl.apply"
CMD_REJECT = "tritonrl.reject"
CMD_CANCEL = "tritonrl.cancel"
CMD_STATUS = "tritonrl.status"
MODEL_CHANGED = "tritonrl/modelChanged"
MAX_APPLY = 3
SETTINGS_WAIT_S = 40.0   # longest a generate waits for the first settings read (that read gives up at 30 s)
CPU_NOTE = "correctness checked by the CPU interpreter, speed not measured"


def ran_on_cpu(verdicts) -> bool:
    """Whether any candidate was run by the CPU interpreter. Candidates rejected before a sandbox
    (parse, static) ran nowhere: they must not make a GPU verification read as a CPU one."""
    return any(v.device == "cpu" and v.stage not in ("parse", "static") for v in verdicts)


def sibling_uri(uri: str) -> str:
    """file:///a/b/mod.py -> file:///a/b/mod_triton.py (any scheme; a name without .py gets the suffix)."""
    u = urlparse(uri)
    p = PurePosixPath(u.path or u.netloc)
    name = (p.stem if p.suffix == ".py" else p.name) + "_triton.py"
    return urlunparse(u._replace(path=str(p.with_name(name)))) if u.path else uri + "_triton.py"


def _is_python(doc) -> bool:
    lang = getattr(doc, "language_id", None)
    if lang:
        return lang == "python"
    return urlparse(doc.uri).path.endswith((".py", ".pyi"))


def _why(e: Exception) -> str:
    from training.backends import BackendError

    return str(e) if isinstance(e, BackendError) else f"{type(e).__name__}: {e}"


def note_for(verdicts) -> str:
    """' (correctness checked by the CPU interpreter, ...; checked at n=4096 and other sizes)' where a candidate ran
    on the CPU, else ''. The sizes are the base trials' module constants: on a CPU the verifier scales a module down
    to what the interpreter runs in seconds, so the user learns at which sizes the kernel was seen right."""
    if not ran_on_cpu(verdicts):
        return ""
    sizes = ""
    for v in verdicts:
        base = [s for s in (v.shapes or []) if isinstance(s, dict) and s.get("label") == "base" and s.get("constants")]
        if v.device == "cpu" and base:
            items = list(base[0]["constants"].items())
            sizes = "; checked at " + ", ".join(f"{k}={val}" for k, val in items[:6]) + (
                ", ..." if len(items) > 6 else "") + " and other sizes"
            break
    return f" ({CPU_NOTE}{sizes})"


def _phases_note(v) -> str:
    """Where a candidate's verification time went, for the log: ' [verifier 8.1 s: reference 2.0, ...]'."""
    phases = ", ".join(f"{k} {t:.1f}" for k, t in (v.phases_s or {}).items() if isinstance(t, (int, float)) and t >= 0.05)
    return f" [verifier {v.elapsed_s:.1f} s: {phases}]" if v.elapsed_s else ""


class TritonRLServer(LanguageServer):
    def __init__(self, settings: Settings | None = None):
        # TritonRLProtocol: every request gets an answer, even a malformed one (lsp_server/protocol.py)
        super().__init__("tritonrl-lsp", "0.1.0", protocol_cls=TritonRLProtocol)
        self.settings = settings or Settings()
        self.state = JobTable()
        self._backend = None
        self._backend_lock = threading.Lock()
        self._load_lock = threading.Lock()
        self._serving_path: str | None = None   # the checkpoint folder that serves (model runs only)
        self._reload_lock = threading.Lock()
        self._watcher: CheckpointWatcher | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self.client_progress = False
        self.client_config = False              # the client answers workspace/configuration
        self.started = False                    # `initialized` received
        self.settings_ready = asyncio.Event()   # set once `initialized` has read the client's settings
        self._feedback = None
        self._row_store: dict[str, Path] = {}   # suggestion id -> the store it was logged in (the path may change)
        self.warm = "off"                       # warm start: off, loading, ready, failed (status reports it)
        self._warm_seq = 0                      # a settings change starts a new warm-up; an older one leaves `warm`

    # -- feedback store: what was shown and what the user did; never allowed to break a request --
    def feedback(self):
        if self._feedback is None:
            from training.feedback import FeedbackStore

            self._feedback = FeedbackStore(self.settings.feedback_db)
            self.note(f"TritonRL feedback store: {self._feedback.path}")
        return self._feedback

    def _log_shown(self, res, uri: str, class_name: str, problem: str, model_id: str) -> list[str]:
        ids = []
        for c in res:
            try:
                store = self.feedback()
                ids.append(store.record_shown(
                    problem=problem, prompt=c.prompt, response=c.response, code=c.code, verdict=c.verdict,
                    model_id=model_id, uri=uri, class_name=class_name))
                self._row_store[ids[-1]] = store.path
            except Exception:
                log.exception("feedback store")
                ids.append("")
        return ids

    def _decide(self, ids: list[str], decision: str, only_undecided: bool = False) -> None:
        """Record the user's decision on these rows, each in the store it was logged in: after the
        feedback path setting changed, a decision on an earlier suggestion still reaches its row."""
        try:
            from training.feedback import FeedbackStore

            current = self.feedback()
            by_store: dict[Path, list[str]] = {}
            for i in ids:
                if i:
                    by_store.setdefault(self._row_store.get(i, current.path), []).append(i)
            for path, rows in by_store.items():
                if path == current.path:
                    current.decide(rows, decision, only_undecided=only_undecided)
                    continue
                other = FeedbackStore(path)
                try:
                    other.decide(rows, decision, only_undecided=only_undecided)
                finally:
                    other.close()
        except Exception:
            log.exception("feedback store")

    def _model_id(self) -> str:
        s = self.settings
        if not (s.model or s.endpoint) and self._backend is None:
            from training import default_model

            return default_model.NAME if default_model.path() else ""
        return getattr(self._backend, "model_id", "") or self._serving_path or s.model or s.endpoint or ""

    # -- sending from job threads: every write goes through the event loop's thread ---------------
    def _call(self, fn, *args) -> None:
        loop = self.loop
        if loop is not None and loop.is_running():
            try:
                if threading.get_ident() == self._loop_thread:
                    fn(*args)
                else:
                    loop.call_soon_threadsafe(fn, *args)
                return
            except RuntimeError:  # loop closed: shutting down
                return
        fn(*args)

    def say(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        log.info("showMessage: %s", message)
        self._call(self.window_show_message, types.ShowMessageParams(type=kind, message=message))

    def note(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        log.info("logMessage: %s", message)
        self._call(self.window_log_message, types.LogMessageParams(type=kind, message=message))

    # -- settings ----------------------------------------------------------------------------------
    def apply_settings(self, opts: Any, origin: str) -> set[str]:
        """Merge settings from the client; a different model drops the loaded one (running jobs keep it)."""
        changed, errors = self.settings.update(opts)
        for e in errors:
            self.say(f"TritonRL: ignoring the setting {e} (from {origin})", types.MessageType.Warning)
        if changed & set(Settings.MODEL_KEYS):
            with self._backend_lock:
                self._backend = None
            if self.started:
                self.watch_model()
                self.warm_up()
        if "feedback_db" in changed and self._feedback is not None:
            old, self._feedback = self._feedback, None
            old.close()
        if changed:
            self.note(f"TritonRL settings from {origin}: "
                      + ", ".join(f"{k}={getattr(self.settings, k)!r}" for k in sorted(changed)))
        return changed

    async def pull_configuration(self, origin: str) -> bool:
        """Read the `tritonrl` section through workspace/configuration; False when the client cannot."""
        if not self.client_config:
            return False
        try:
            res = await asyncio.wait_for(self.workspace_configuration_async(types.ConfigurationParams(
                items=[types.ConfigurationItem(section=SECTION)])), 30)
        except Exception as e:
            log.warning("workspace/configuration failed: %s", e)
            return False
        if res and res[0] is not None:
            self.apply_settings(res[0], origin)
        return True

    async def wait_for_settings(self, timeout: float = SETTINGS_WAIT_S) -> None:
        """Wait until `initialized` has read the client's settings (at most `timeout` s: a client that
        never sends `initialized` gets the settings the server has). A client that does not answer
        workspace/configuration has given all its settings already: no wait."""
        if self.settings_ready.is_set() or not self.client_config:
            return
        try:
            await asyncio.wait_for(self.settings_ready.wait(), timeout)
        except asyncio.TimeoutError:
            self.note(f"TritonRL: no settings from the client after {timeout:.0f} s; using the ones I have",
                      types.MessageType.Warning)

    # -- backend and reload -------------------------------------------------------------------------
    def _load(self, model: str | None):
        from training.backends import load_backend

        s = self.settings
        # one load at a time (the warm start, a reload, a job): two threads importing transformers at once
        # made one of them fail ("cannot import name 'AutoModelForCausalLM'"), and two models double the memory
        with self._load_lock:
            backend = load_backend(model, backend=s.backend, endpoint=s.endpoint, served_model=s.served_model,
                                   device=s.device)
        if hasattr(backend, "timeout"):
            backend.timeout = s.model_timeout_s
        return backend

    def backend(self):
        """The model backend, loaded on first use (raises BackendError; a failed load is retried)."""
        with self._backend_lock:
            if self._backend is None:
                self._backend = self._load(self._serving_path or self.settings.model)
            return self._backend

    def job_verify_config(self):
        """The verifier settings every job uses (and the warm start fills the pool for: same pool key)."""
        from verifier import VerifyConfig

        s = self.settings
        # warm sandboxes between jobs (each still runs one candidate and dies); no torch.compile baseline:
        # the offer shows the speedup over eager, and compiling the reference cost ~20 s per new module on
        # the H200 before any candidate could start (benchmarks/results/lsp_suggest_latency_h200.md)
        # A spare warm reference worker: a request soon after another (a user going through a file's modules) finds
        # one warm. A worker the pool starts takes longer to warm up on an H100 host (import torch, CUDA context,
        # Triton, sympy) than the 3-10 s job before it, and the next reference waited for it (2.9-5.9 s,
        # benchmarks/results/h100_20261206/)
        vcfg = VerifyConfig(device=s.device, trials=s.trials, timeout_s=s.verify_timeout_s, pool=True,
                            compile_baseline=False, reference_pool=2)
        if s.lazy_baseline is not None:
            vcfg.lazy_baseline = s.lazy_baseline
        return vcfg

    def warm_up(self) -> None:
        """Load the model now, in the background, so the first request does not wait for it (setting
        warm_start); on a GPU also start the verifier's warm sandboxes (each creates a CUDA context)."""
        if not self.settings.warm_start:
            self.warm = "off"
            return
        self._warm_seq += 1
        self.warm = "loading"
        threading.Thread(target=self._warm_up, args=(self._warm_seq,), name="tritonrl-warm-up", daemon=True).start()

    def _warm_up(self, seq: int) -> None:
        t0 = time.monotonic()
        try:
            backend = self.backend()
        except Exception as e:  # the first job loads again and tells the user why it failed
            log.warning("warm start: %s", e)
            if seq == self._warm_seq:
                self.warm = "failed"
            # shown now: the user learns of a bad model setting before asking for a kernel
            self.say(f"TritonRL: the model did not load at start ({_why(e)}); the next request tries again",
                     types.MessageType.Warning)
            return
        loaded_s = time.monotonic() - t0
        parts = [f"model {getattr(backend, 'model_id', '') or '?'} loaded in {loaded_s:.1f} s"]
        try:
            cfg = self.job_verify_config().resolved()
            # on a CPU a sandbox starts in a few seconds and the interpreter's checks dominate a job; on a GPU
            # each sandbox creates a CUDA context and builds Triton's driver helpers first
            if cfg.device == "cuda":
                from verifier.runner import prewarm

                prewarm(cfg)
                parts.append(f"verifier sandboxes warm after {time.monotonic() - t0:.1f} s")
        except Exception as e:
            log.exception("warm start: verifier")
            parts.append(f"verifier not warmed ({_why(e)}; jobs start their sandboxes)")
        if seq == self._warm_seq:
            self.warm = "ready"
        self.note("TritonRL warm start: " + "; ".join(parts))

    def watch_model(self) -> None:
        """Watch settings.model (a run directory) for published checkpoints; pin the one serving now."""
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        s = self.settings
        self._serving_path = None
        if s.endpoint or not s.model or not Path(s.model).is_dir():
            return  # an endpoint serves itself; a missing folder is reported by the first load
        self._serving_path = str(checkpoints.resolve(s.model))
        try:
            self._watcher = CheckpointWatcher(s.model, lambda rec: threading.Thread(
                target=self.reload, args=(rec,), name="tritonrl-reload", daemon=True).start())
            self._watcher.start()
        except Exception as e:
            self._watcher = None
            self.note(f"TritonRL: cannot watch {s.model} for new checkpoints: {_why(e)}", types.MessageType.Warning)

    def reload(self, rec: dict) -> bool:
        """Load the checkpoint `rec` (from `checkpoints.latest`) here, then serve it from the next job
        on. A failure keeps the old model and says why. Loads run one at a time; a superseded one is skipped."""
        with self._reload_lock:
            path = rec["path"]
            now = checkpoints.latest(self.settings.model) if self.settings.model else None
            if now is not None and now["path"] != path:
                return False  # LATEST moved on while we waited; the watcher reports the newer one
            if path == self._serving_path and self._backend is not None:
                return False
            old = self._model_id() or "the previous model"
            self.note(f"TritonRL: loading the new checkpoint {path}")
            try:
                new = self._load(path)
            except Exception as e:
                log.exception("reload")
                self.say(f"TritonRL: cannot load the new checkpoint {path}: {_why(e)}; still serving {old}",
                         types.MessageType.Error)
                return False
            with self._backend_lock:
                self._backend, self._serving_path = new, path
            info = {"model_id": new.model_id, "path": path, **{k: rec[k] for k in ("step", "stage") if k in rec}}
            step = f" (step {rec['step']})" if "step" in rec else ""
            self.say(f"TritonRL: now serving {new.model_id}{step}; jobs already running finish with {old}")
            self._call(self.protocol.notify, MODEL_CHANGED, info)
            return True

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None

    # -- documents -------------------------------------------------------------------------------
    def python_source(self, uri: str):
        """(source, version) of a Python document, or None (unopened and unreadable, or not Python)."""
        try:
            doc = self.workspace.get_text_document(uri)
            if not _is_python(doc):
                return None
            return doc.source, doc.version
        except Exception as e:  # unopened URI that is not on disk, odd schemes, decoding errors
            log.info("cannot read %s: %s", uri, e)
            return None

    # -- progress --------------------------------------------------------------------------------
    def _progress_begin(self, job: Job) -> str | None:
        if not self.client_progress or self.loop is None:
            return None
        token = f"tritonrl-{uuid.uuid4()}"
        try:
            fut = asyncio.run_coroutine_threadsafe(self.work_done_progress.create_async(token), self.loop)
            fut.result(timeout=30)
        except Exception as e:
            log.warning("the client refused a progress token: %s", e)
            return None
        with self.state.lock:
            job.token = token
            self.state.by_token[token] = job
        self._call(self.work_done_progress.begin, token,
                   types.WorkDoneProgressBegin(title=f"TritonRL: {job.class_name}", cancellable=True,
                                               message="starting"))
        return token

    def _progress(self, token: str | None, message: str) -> None:
        log.info("progress: %s", message)
        if token:
            self._call(self.work_done_progress.report, token, types.WorkDoneProgressReport(message=message))

    def _progress_end(self, token: str | None, message: str) -> None:
        if token:
            self._call(self.work_done_progress.end, token, types.WorkDoneProgressEnd(message=message))

    # -- the job -----------------------------------------------------------------------------------
    def start_generate(self, uri: str, class_name: str, version: Any = None) -> tuple[dict, Job | None]:
        """Start a job for `class_name` of `uri` on the text as it is now: ({"started": ...}, the job)."""
        if not isinstance(uri, str) or not isinstance(class_name, str):
            raise ValueError("arguments must be [uri, class name, version?]")
        key = (uri, class_name)
        got = self.python_source(uri)
        if got is None:
            self.say(f"TritonRL: {uri} is not an open Python document", types.MessageType.Warning)
            return {"started": False, "reason": "not a Python document"}, None
        source, doc_version = got
        # the job parses; this is cheap. (?<=\r): `^` with re.M misses a class line in a file with CR-only line ends
        if not re.search(rf"(?:^|(?<=\r))class\s+{re.escape(class_name)}\b", source, re.M):
            self.say(f"TritonRL: no nn.Module class {class_name!r} in this document", types.MessageType.Warning)
            return {"started": False, "reason": "no such class"}, None
        with self.state.lock:
            if key in self.state.running:
                self.say(f"TritonRL: a Triton kernel for {class_name} is already being generated; "
                         f"wait for it to finish", types.MessageType.Info)
                return {"started": False, "reason": "already running"}, None
            job = self.state.running[key] = Job(uri, class_name)
        if version is not None and doc_version is not None and version != doc_version:
            self.note(f"{class_name}: asked at version {version}, the document is at {doc_version}; "
                      f"using the current text")
        threading.Thread(target=self._job, args=(job, source, doc_version), name=f"tritonrl-{class_name}",
                         daemon=True).start()
        return {"started": True}, job

    def cancel(self, job: Job | None) -> bool:
        if job is None or job.done.done():
            return False
        job.cancel.set()
        self._progress(job.token, "cancelling")
        return True

    def cancel_token(self, token) -> bool:
        with self.state.lock:
            job = self.state.by_token.get(token)
        return self.cancel(job)

    def cancel_class(self, uri: str, class_name: str) -> bool:
        with self.state.lock:
            job = self.state.running.get((uri, class_name))
        return self.cancel(job)

    def _job(self, job: Job, source: str, version: int | None) -> None:
        end = "failed"
        try:
            self._progress_begin(job)
            end = self._run_job(job, source, version)
        except JobCancelled:
            end = "cancelled"
            kept = (f"the {job.offered} verified kernel(s) found before stay offered" if job.offered
                    else "nothing was shown")
            self.say(f"TritonRL: generating a kernel for {job.class_name} cancelled; {kept}")
        except Exception as e:  # anything: log it, tell the user, keep serving
            log.exception("job %s failed", job.class_name)
            self.note(f"TritonRL job for {job.class_name} failed:\n{traceback.format_exc()}",
                      types.MessageType.Error)
            self.say(f"TritonRL: generating a kernel for {job.class_name} failed: {type(e).__name__}: {e}",
                     types.MessageType.Error)
        finally:
            self._progress_end(job.token, end)
            with self.state.lock:
                self.state.running.pop((job.uri, job.class_name), None)
                self.state.by_token.pop(job.token, None)
            job.done.set_result(end)

    def _run_job(self, job: Job, source: str, version: int | None) -> str:
        from training.backends import BackendError, GenerationConfig
        from training.extract import extract_problem
        from training.suggest import run_problem
        from verifier.problem import ProblemError

        uri, class_name, token = job.uri, job.class_name, job.token
        try:
            problem = extract_problem(source, class_name)
        except NeedsInputs as e:
            self.say(f"TritonRL: {e}", types.MessageType.Warning)
            self.note(f"Inputs for {class_name} (paste at module level and edit):\n{e.stub}", types.MessageType.Info)
            return "needs inputs"
        except ExtractError as e:
            self.say(f"TritonRL: cannot build a problem from {class_name}: {e}", types.MessageType.Error)
            return "failed"

        job.check()
        self._progress(token, "loading the model")
        try:
            backend = self.backend()   # this job keeps this backend even if a new checkpoint swaps in
        except Exception as e:
            log.exception("backend load")
            self.say(f"TritonRL: cannot load the model: {_why(e)}", types.MessageType.Error)
            return "model not loaded"

        def progress(event: str, info: dict) -> None:
            if event == "generating":
                job.check()
                self._progress(token, f"generating {info.get('n')} candidates (turn {info.get('turn')})")
            elif event == "verifying":
                job.check()
                self._progress(token, f"verifying {info.get('n')} candidates")
            elif event == "candidate":  # from the verifier's threads, candidates interleaved
                phase = {"correctness": "compiling, checking correctness", "timing": "timing"}.get(
                    info.get("phase"), info.get("phase"))
                self._progress(token, f"verifying candidate {info.get('i')} of {info.get('n')}: {phase}")
            elif event == "verdict" and info["candidate"].verdict.ok and not job.cancel.is_set():
                # offered now, not when the whole batch is done: the user can apply it while the rest verify
                so_far.append(info["candidate"])
                self._offer(job, version, so_far, problem, model_id, logged)
                if len(so_far) == 1 and info.get("pending"):
                    self.say(f"TritonRL: a verified Triton kernel for {class_name} is ready "
                             f"({info['candidate'].label}): use the code action 'Apply verified Triton kernel'; "
                             f"still verifying {info['pending']} more{note_for([info['candidate'].verdict])}",
                             types.MessageType.Info)
            elif event == "turn-done":
                self._progress(token, f"turn {info.get('turn')}: {info.get('verified')} verified")

        so_far: list = []               # this job's verified candidates, in the order they verified
        logged: dict[int, str] = {}     # id(candidate) -> its row in the feedback store
        model_id = getattr(backend, "model_id", "")

        s = self.settings
        vcfg = self.job_verify_config()
        try:
            res = run_problem(problem, backend, n=s.n, turns=s.turns,
                              gen=GenerationConfig(n=s.n, max_new_tokens=s.max_new_tokens),
                              verify_cfg=vcfg, progress=progress)
        except BackendError as e:
            self.say(f"TritonRL: the model failed: {e}", types.MessageType.Error)
            return "model failed"
        except ProblemError as e:  # the module itself does not run in the verifier: nothing to verify against
            self.say(f"TritonRL: cannot verify kernels for {class_name}: {e}", types.MessageType.Warning)
            return "module does not run"
        job.check()  # cancelled while verifying: show nothing more (what verified before stays offered)

        note = note_for([c.verdict for c in res.candidates])
        for i, c in enumerate(res.candidates, 1):
            self.note(f"{class_name} candidate {i} (turn {c.turn}): {c.label}{_phases_note(c.verdict)}")
        verified = res.verified
        if verified:
            self._offer(job, version, verified, problem, model_id, logged)
            self.say(f"TritonRL: {len(verified)} verified Triton kernel(s) for {class_name}: use the code action "
                     f"'Apply verified Triton kernel'{note}", types.MessageType.Info)
            return "done"
        if not res.candidates:
            self.say(f"TritonRL: the model returned no candidates for {class_name}", types.MessageType.Warning)
            return "done, no candidates"
        parts = []
        for i, c in enumerate(res.candidates, 1):
            v = c.verdict
            parts.append(f"{i}: {v.stage} ({v.reasons[0].rule if v.reasons else '?'})")
        self.say(f"TritonRL: no verified kernel for {class_name} from {len(res.candidates)} candidate(s) — "
                 + "; ".join(parts) + note, types.MessageType.Warning)
        return "done, none verified"

    def _offer(self, job: Job, version: int | None, verified: list, problem: str, model_id: str,
               logged: dict[int, str]) -> None:
        """Make the best of `verified` (this job's verified candidates so far) the class's suggestions, logging
        each in the feedback store once (`logged` keeps the rows across calls of one job)."""
        from training.suggest import rank

        shown = rank(verified)[:MAX_APPLY]
        new = [c for c in shown if id(c) not in logged]
        for c, row in zip(new, self._log_shown(new, job.uri, job.class_name, problem, model_id) if new else []):
            logged[id(c)] = row
        ids = [logged[id(c)] for c in shown]
        with self.state.lock:
            old = self.state.results.get((job.uri, job.class_name))
            self.state.results[(job.uri, job.class_name)] = JobResult(job.uri, job.class_name, version, shown, ids)
            job.offered = len(verified)
        if old is not None:  # replaced by a newer job: what was never applied counts as rejected
            mine = set(logged.values())
            self._decide([i for i in old.ids if i not in mine], "rejected", only_undecided=True)

    # -- code actions ------------------------------------------------------------------------------
    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """Actions for the nn.Module classes the range touches: only the statements there are parsed,
        and the model is never involved."""
        if params.context.only and not any(KIND.startswith(k) for k in params.context.only):
            return []
        uri = params.text_document.uri
        got = self.python_source(uri)
        if got is None:
            return []
        source, version = got
        first, last = params.range.start.line + 1, params.range.end.line + 1
        out: list[types.CodeAction] = []
        for name, lo, hi in modules_in(source, (first, last)):
            out.append(types.CodeAction(
                title=f"Generate Triton kernel for {name}", kind=KIND,
                command=types.Command(title=f"Generate Triton kernel for {name}", command=CMD_GENERATE,
                                      arguments=[uri, name, version])))
            with self.state.lock:
                res = self.state.results.get((uri, name))
            if res is None:
                continue
            target = sibling_uri(uri)
            for i, c in enumerate(res.verified):
                t = c.verdict.trials
                title = f"Apply verified Triton kernel ({c.label}, {t.get('passed', 0)}/{t.get('run', 0)} trials)"
                edit = types.WorkspaceEdit(document_changes=[
                    types.CreateFile(uri=target, options=types.CreateFileOptions(overwrite=True)),
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=target, version=None),
                        edits=[types.TextEdit(range=types.Range(types.Position(0, 0), types.Position(0, 0)),
                                              new_text=c.code)]),
                ])
                out.append(types.CodeAction(title=title, kind=KIND, edit=edit,
                                            command=types.Command(title=title, command=CMD_APPLY,
                                                                  arguments=[uri, name, res.version,
                                                                             res.ids[i] if i < len(res.ids) else ""])))
            out.append(types.CodeAction(title="Reject Triton suggestions", kind=KIND,
                                        command=types.Command(title="Reject Triton suggestions", command=CMD_REJECT,
                                                              arguments=[uri, name])))
        return out

    def applied(self, uri: str, class_name: str, job_version: Any = None, suggestion_id: str = "") -> dict:
        if suggestion_id:
            self._decide([suggestion_id], "accepted")
        got = self.python_source(uri)
        now = got[1] if got else None
        target = sibling_uri(uri)
        if job_version is not None and now is not None and now != job_version:
            self.say(f"TritonRL: {class_name} changed since the kernel was generated (version {job_version}, now "
                     f"{now}); the kernel in {target} was verified against the older code — re-run "
                     f"'Generate Triton kernel for {class_name}' to check it", types.MessageType.Warning)
            return {"stale": True, "file": target}
        self.note(f"{class_name}: kernel written to {target}")
        return {"stale": False, "file": target}

    def reject(self, uri: str, class_name: str) -> dict:
        with self.state.lock:
            res = self.state.results.pop((uri, class_name), None)
        had = res is not None
        if had:
            self._decide(res.ids, "rejected", only_undecided=True)
            self.say(f"TritonRL: suggestions for {class_name} rejected")
        return {"rejected": had}

    def status(self) -> dict:
        """Which model serves, the settings, and the jobs in flight (for the client's status bar and tests)."""
        with self.state.lock:
            jobs = [{"uri": j.uri, "class": j.class_name, "cancelling": j.cancel.is_set()}
                    for j in self.state.running.values()]
        return {"model_id": self._model_id(), "loaded": self._backend is not None, "warm": self.warm,
                "watching": str(self._watcher.run_dir) if self._watcher else None,
                "settings": self.settings.to_dict(), "jobs": jobs}
