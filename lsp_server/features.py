"""The LSP wiring of the TritonRL server: which requests and notifications go to which method of
`TritonRLServer` (lsp_server/server.py describes the behaviour)."""
from __future__ import annotations

import asyncio
import logging
import threading
import traceback
from typing import Any

from lsprotocol import types

from .documents import use_fast_documents
from .server import CMD_APPLY, CMD_CANCEL, CMD_GENERATE, CMD_REJECT, CMD_STATUS, KIND, TritonRLServer
from .settings import Settings

log = logging.getLogger("tritonrl.lsp")


def _guard(name: str, default: Any = None, usage: str = "", strings: int = 0):
    """Wrap a command: bad arguments or any exception become a message and a plain answer. The first
    `strings` arguments must be strings (`usage` names them): a client that sends [] or [1, 2] learns
    what the command takes, not "IndexError: tuple index out of range"."""
    def wrap(fn):
        def run(ls: TritonRLServer, *args):
            if len(args) < strings or not all(isinstance(a, str) for a in args[:strings]):
                ls.say(f"TritonRL: {name} expects the arguments {usage}, got {list(args)!r:.200}",
                       types.MessageType.Error)
                return default
            try:
                return fn(ls, *args)
            except Exception as e:
                log.exception(name)
                ls.say(f"TritonRL: {name} failed: {type(e).__name__}: {e}", types.MessageType.Error)
                return default
        return run
    return wrap


def build_server(settings: Settings | None = None) -> TritonRLServer:
    """The server with its features; `settings` come from the command line."""
    server = TritonRLServer(settings)

    @server.feature(types.INITIALIZE)
    def initialize(ls: TritonRLServer, params: types.InitializeParams):
        ls.loop = asyncio.get_running_loop()
        ls._loop_thread = threading.get_ident()
        use_fast_documents(ls.workspace)
        ls.settings.update(params.initialization_options)  # bad values: told once `initialized` can show them
        caps = params.capabilities
        ls.client_progress = bool(caps and caps.window and caps.window.work_done_progress)
        ls.client_config = bool(caps and caps.workspace and caps.workspace.configuration)
        # a status request between here and `initialized` already sees the warm start coming
        ls.warm = "loading" if ls.settings.warm_start else "off"
        log.info("settings: %s", ls.settings)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: TritonRLServer, params: types.InitializedParams):
        try:
            await ls.pull_configuration("workspace/configuration")
            ls.started = True
            ls.watch_model()
            ls.warm_up()
        finally:
            ls.settings_ready.set()  # generate requests that came in meanwhile go on now
        ls.note(f"TritonRL serves {ls._model_id() or 'no model (set model or endpoint)'}")

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: TritonRLServer, params: types.DidChangeConfigurationParams):
        if not await ls.pull_configuration("workspace/configuration"):
            ls.apply_settings(params.settings, "workspace/didChangeConfiguration")

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(ls: TritonRLServer, params: types.WorkDoneProgressCancelParams):
        ls.cancel_token(params.token)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: TritonRLServer, *args):
        ls.stop_watching()
        with ls.state.lock:
            jobs = list(ls.state.running.values())
        for job in jobs:
            job.cancel.set()

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
    async def generate(ls: TritonRLServer, *args):
        """[uri, class, version?, {"wait": bool}?]: with wait, answer when the job ends ({"outcome"}),
        and a $/cancelRequest for this request cancels the job."""
        await ls.wait_for_settings()  # the first workspace/configuration read, when one is under way
        try:
            opts = args[3] if len(args) > 3 and isinstance(args[3], dict) else {}
            if len(args) < 2:  # not "IndexError: tuple index out of range"
                raise ValueError("arguments must be [uri, class name, version?]")
            res, job = ls.start_generate(args[0], args[1], args[2] if len(args) > 2 else None)
        except Exception as e:
            log.exception("generate")
            ls.say(f"TritonRL: cannot start: {type(e).__name__}: {e}", types.MessageType.Error)
            return {"started": False, "reason": str(e)}
        if job is None or not opts.get("wait"):
            return res
        # pygls keeps the future of each request in flight; $/cancelRequest cancels it
        request = ls.protocol._request_futures.get(ls.protocol.msg_id)
        if request is not None:
            request.add_done_callback(lambda f: f.cancelled() and ls.cancel(job))
        return {"started": True, "outcome": await asyncio.wrap_future(job.done)}

    @server.command(CMD_APPLY)
    @_guard("apply", usage="[uri, class name, version?, suggestion id?]", strings=2)
    def apply(ls: TritonRLServer, *args):
        sid = args[3] if len(args) > 3 and isinstance(args[3], str) else ""  # an id is a string; anything else: none
        return ls.applied(args[0], args[1], args[2] if len(args) > 2 else None, sid)

    @server.command(CMD_REJECT)
    @_guard("reject", usage="[uri, class name]", strings=2)
    def reject(ls: TritonRLServer, *args):
        return ls.reject(args[0], args[1])

    @server.command(CMD_CANCEL)
    @_guard("cancel", {"cancelled": False}, usage="[uri, class name]", strings=2)
    def cancel(ls: TritonRLServer, *args):
        return {"cancelled": ls.cancel_class(args[0], args[1])}

    @server.command(CMD_STATUS)
    @_guard("status")
    def status(ls: TritonRLServer, *args):
        return ls.status()

    return server
