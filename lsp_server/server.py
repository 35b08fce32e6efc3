"""The TritonRL language server: code actions that turn an nn.Module into a verified Triton kernel.

A thin adapter over `training` (extraction, backends, the suggest pipeline) and `verifier`:

* ``textDocument/codeAction`` — inside any nn.Module class (found with `training.extract.modules_in`,
  which tolerates syntax errors elsewhere in the file) the server offers "Generate Triton kernel for
  <Class>" (kind ``refactor.rewrite.tritonrl``, command ``tritonrl.generate``). Listing actions is
  cheap: it never loads or runs the model.
* ``workspace/executeCommand tritonrl.generate [uri, class, version]`` — starts a background job (a
  thread) on the document text as it was when asked, with work-done progress, one job per
  (uri, class) at a time. The model backend is loaded lazily by the first job; a load failure is
  shown to the user and the server keeps running.
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
"""
from __future__ import annotations

import asyncio
import logging
import threading
import traceback
import uuid
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlparse, urlunparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from training.extract import ExtractError, NeedsInputs, modules_in

log = logging.getLogger("tritonrl.lsp")

KIND = "refactor.rewrite.tritonrl"
CMD_GENERATE = "tritonrl.generate"
CMD_APPLY = "tritonrl.apply"
CMD_REJECT = "tritonrl.reject"
MAX_APPLY = 3
CPU_NOTE = "correctness checked by the CPU interpreter, speed not measured"


@dataclass
class Settings:
    model: str | None = None
    endpoint: str | None = None
    served_model: str | None = None
    backend: str = "auto"
    device: str = "auto"
    n: int = 4
    trials: int | None = None
    turns: int = 2
    feedback_db: str | None = None   # None: training.feedback.default_path() (per user)

    KEYS = ("model", "endpoint", "served_model", "backend", "device", "n", "trials", "turns", "feedback_db")

    def update(self, opts: Any) -> None:
        """Merge initializationOptions (flat, or under a "tritonrl" key); unknown keys are ignored."""
        if not isinstance(opts, dict):
            return
        if isinstance(opts.get("tritonrl"), dict):
            opts = {**opts, **opts["tritonrl"]}
        for k in self.KEYS:
            v = opts.get(k)
            if v is None and k == "served_model":
                v = opts.get("servedModel")
            if v is None and k == "feedback_db":
                v = opts.get("feedbackDb")
            if v is None:
                continue
            if k in ("n", "trials", "turns"):
                v = int(v)
            setattr(self, k, v)


@dataclass
class JobResult:
    uri: str
    class_name: str
    version: int | None            # the document version the job started from
    verified: list                 # training.suggest.Candidate, best first
    ids: list = field(default_factory=list)  # their rows in the feedback store ('' when not logged)


@dataclass
class _State:
    running: set = field(default_factory=set)         # (uri, class) with a job in flight
    results: dict = field(default_factory=dict)       # (uri, class) -> JobResult
    lock: threading.Lock = field(default_factory=threading.Lock)


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


class TritonRLServer(LanguageServer):
    def __init__(self, settings: Settings | None = None, backend_factory=None):
        super().__init__("tritonrl-lsp", "0.1.0")
        self.settings = settings or Settings()
        self.state = _State()
        self._backend = None
        self._backend_lock = threading.Lock()
        self._backend_factory = backend_factory   # tests of the server object may inject one
        self.loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self.client_progress = False
        self._feedback = None

    # -- feedback store: what was shown and what the user did; never allowed to break a request --
    def feedback(self):
        if self._feedback is None:
            from training.feedback import FeedbackStore

            self._feedback = FeedbackStore(self.settings.feedback_db)
            self.note(f"TritonRL feedback store: {self._feedback.path}")
        return self._feedback

    def _log_shown(self, res, uri: str, class_name: str, problem: str) -> list[str]:
        ids = []
        for c in res:
            try:
                ids.append(self.feedback().record_shown(
                    problem=problem, prompt=c.prompt, response=c.response, code=c.code, verdict=c.verdict,
                    model_id=self._model_id(), uri=uri, class_name=class_name))
            except Exception:
                log.exception("feedback store")
                ids.append("")
        return ids

    def _decide(self, ids: list[str], decision: str, only_undecided: bool = False) -> None:
        try:
            self.feedback().decide([i for i in ids if i], decision, only_undecided=only_undecided)
        except Exception:
            log.exception("feedback store")

    def _model_id(self) -> str:
        return getattr(self._backend, "model_id", "") or self.settings.model or self.settings.endpoint or ""

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

    # -- backend ---------------------------------------------------------------------------------
    def backend(self):
        """The model backend, loaded on first use (raises BackendError; a failed load is retried)."""
        with self._backend_lock:
            if self._backend is None:
                if self._backend_factory is not None:
                    self._backend = self._backend_factory(self.settings)
                else:
                    from training.backends import load_backend

                    s = self.settings
                    self._backend = load_backend(s.model, backend=s.backend, endpoint=s.endpoint,
                                                 served_model=s.served_model, device=s.device)
            return self._backend

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
    def _progress_begin(self, title: str) -> str | None:
        if not self.client_progress or self.loop is None:
            return None
        token = f"tritonrl-{uuid.uuid4()}"
        try:
            fut = asyncio.run_coroutine_threadsafe(self.work_done_progress.create_async(token), self.loop)
            fut.result(timeout=30)
        except Exception as e:
            log.warning("the client refused a progress token: %s", e)
            return None
        self._call(self.work_done_progress.begin, token,
                   types.WorkDoneProgressBegin(title=title, cancellable=False, message="starting"))
        return token

    def _progress(self, token: str | None, message: str) -> None:
        log.info("progress: %s", message)
        if token:
            self._call(self.work_done_progress.report, token, types.WorkDoneProgressReport(message=message))

    def _progress_end(self, token: str | None, message: str) -> None:
        if token:
            self._call(self.work_done_progress.end, token, types.WorkDoneProgressEnd(message=message))

    # -- the job -----------------------------------------------------------------------------------
    def start_generate(self, uri: str, class_name: str, version: Any = None) -> dict:
        key = (uri, class_name)
        got = self.python_source(uri)
        if got is None:
            self.say(f"TritonRL: {uri} is not an open Python document", types.MessageType.Warning)
            return {"started": False, "reason": "not a Python document"}
        source, doc_version = got
        if class_name not in [n for n, _, _ in modules_in(source)]:
            self.say(f"TritonRL: no nn.Module class {class_name!r} in this document", types.MessageType.Warning)
            return {"started": False, "reason": "no such class"}
        with self.state.lock:
            if key in self.state.running:
                self.say(f"TritonRL: a Triton kernel for {class_name} is already being generated; "
                         f"wait for it to finish", types.MessageType.Info)
                return {"started": False, "reason": "already running"}
            self.state.running.add(key)
        if version is not None and doc_version is not None and version != doc_version:
            self.note(f"{class_name}: asked at version {version}, the document is at {doc_version}; "
                      f"using the current text")
        t = threading.Thread(target=self._job, args=(uri, class_name, source, doc_version),
                             name=f"tritonrl-{class_name}", daemon=True)
        t.start()
        return {"started": True}

    def _job(self, uri: str, class_name: str, source: str, version: int | None) -> None:
        key = (uri, class_name)
        token = None
        end = "failed"
        try:
            token = self._progress_begin(f"TritonRL: {class_name}")
            end = self._run_job(uri, class_name, source, version, token)
        except Exception as e:  # anything: log it, tell the user, keep serving
            log.exception("job %s failed", key)
            self.note(f"TritonRL job for {class_name} failed:\n{traceback.format_exc()}", types.MessageType.Error)
            self.say(f"TritonRL: generating a kernel for {class_name} failed: {type(e).__name__}: {e}",
                     types.MessageType.Error)
        finally:
            self._progress_end(token, end)
            with self.state.lock:
                self.state.running.discard(key)

    def _run_job(self, uri: str, class_name: str, source: str, version: int | None, token) -> str:
        from training.backends import BackendError, GenerationConfig
        from training.extract import extract_problem
        from training.suggest import run_problem
        from verifier import VerifyConfig

        try:
            problem = extract_problem(source, class_name)
        except NeedsInputs as e:
            self.say(f"TritonRL: {e}", types.MessageType.Warning)
            self.note(f"Inputs for {class_name} (paste at module level and edit):\n{e.stub}", types.MessageType.Info)
            return "needs inputs"
        except ExtractError as e:
            self.say(f"TritonRL: cannot build a problem from {class_name}: {e}", types.MessageType.Error)
            return "failed"

        self._progress(token, "loading the model")
        try:
            backend = self.backend()
        except BackendError as e:
            self.say(f"TritonRL: cannot load the model: {e}", types.MessageType.Error)
            return "model not loaded"
        except Exception as e:
            log.exception("backend load")
            self.say(f"TritonRL: cannot load the model: {type(e).__name__}: {e}", types.MessageType.Error)
            return "model not loaded"

        def progress(event: str, info: dict) -> None:
            if event == "generating":
                self._progress(token, f"generating {info.get('n')} candidates (turn {info.get('turn')})")
            elif event == "verifying":
                self._progress(token, f"verifying {info.get('n')} candidates")
            elif event == "turn-done":
                self._progress(token, f"turn {info.get('turn')}: {info.get('verified')} verified")

        s = self.settings
        try:
            res = run_problem(problem, backend, n=s.n, turns=s.turns, gen=GenerationConfig(n=s.n),
                              verify_cfg=VerifyConfig(device=s.device, trials=s.trials), progress=progress)
        except BackendError as e:
            self.say(f"TritonRL: the model failed: {e}", types.MessageType.Error)
            return "model failed"

        cpu = any(c.verdict.device == "cpu" for c in res.candidates)
        note = f" ({CPU_NOTE})" if cpu else ""
        verified = res.verified
        for i, c in enumerate(res.candidates, 1):
            self.note(f"{class_name} candidate {i} (turn {c.turn}): {c.label}")
        if verified:
            shown = verified[:MAX_APPLY]
            ids = self._log_shown(shown, uri, class_name, problem)
            with self.state.lock:
                old = self.state.results.get((uri, class_name))
                self.state.results[(uri, class_name)] = JobResult(uri, class_name, version, shown, ids)
            if old is not None:  # replaced by a newer job: what was never applied counts as rejected
                self._decide(old.ids, "rejected", only_undecided=True)
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

    # -- code actions ------------------------------------------------------------------------------
    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        got = self.python_source(uri)
        if got is None:
            return []
        source, version = got
        if params.context.only and not any(KIND.startswith(k) for k in params.context.only):
            return []
        first, last = params.range.start.line + 1, params.range.end.line + 1
        out: list[types.CodeAction] = []
        for name, lo, hi in modules_in(source):
            if hi < first or lo > last:
                continue
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


def build_server(settings: Settings | None = None, backend_factory=None) -> TritonRLServer:
    server = TritonRLServer(settings, backend_factory)

    @server.feature(types.INITIALIZE)
    def initialize(ls: TritonRLServer, params: types.InitializeParams):
        ls.loop = asyncio.get_running_loop()
        ls._loop_thread = threading.get_ident()
        try:
            ls.settings.update(params.initialization_options)
        except Exception as e:
            log.warning("bad initializationOptions %r: %s", params.initialization_options, e)
        caps = params.capabilities
        ls.client_progress = bool(caps and caps.window and caps.window.work_done_progress)
        log.info("settings: %s", ls.settings)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[KIND], resolve_provider=False))
    def code_action(ls: TritonRLServer, params: types.CodeActionParams):
        try:
            return ls.code_actions(params) or None
        except Exception:
            log.exception("codeAction")
            ls.note(f"TritonRL codeAction failed:\n{traceback.format_exc()}", types.MessageType.Error)
            return None

    @server.command(CMD_GENERATE)
    def generate(ls, *args):
        try:
            uri, name = args[0], args[1]
            return ls.start_generate(uri, name, args[2] if len(args) > 2 else None)
        except Exception as e:
            log.exception("generate")
            ls.say(f"TritonRL: cannot start: {type(e).__name__}: {e}", types.MessageType.Error)
            return {"started": False, "reason": str(e)}

    @server.command(CMD_APPLY)
    def apply(ls, *args):
        try:
            return ls.applied(args[0], args[1], args[2] if len(args) > 2 else None,
                              args[3] if len(args) > 3 else "")
        except Exception:
            log.exception("apply")
            return None

    @server.command(CMD_REJECT)
    def reject(ls, *args):
        try:
            return ls.reject(args[0], args[1])
        except Exception:
            log.exception("reject")
            return None

    return server
