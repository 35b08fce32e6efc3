"""Helpers for driving the real language server with pytest-lsp's client (used by the LSP tests)."""
from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from typing import Union

import attrs
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from conftest import ROOT

JOB_TIMEOUT = 300


# --- the client ----------------------------------------------------------------------------------
def _converter():
    """pygls' converter, with a fix: lsprotocol decodes any CodeAction that carries a `command` as a
    Command (it only checks for the key); a Command's `command` is a string, a CodeAction's an object."""
    conv = default_converter()

    def hook(obj, _):
        if isinstance(obj.get("command"), str):
            return conv.structure(obj, types.Command)
        return conv.structure(obj, types.CodeAction)

    conv.register_structure_hook(Union[types.Command, types.CodeAction], hook)
    return conv


CAPS = types.ClientCapabilities(
    window=types.WindowClientCapabilities(work_done_progress=True),
    workspace=types.WorkspaceClientCapabilities(
        apply_edit=True,
        workspace_edit=types.WorkspaceEditClientCapabilities(
            document_changes=True, resource_operations=[types.ResourceOperationKind.Create])),
    text_document=types.TextDocumentClientCapabilities(code_action=types.CodeActionClientCapabilities(
        code_action_literal_support=types.ClientCodeActionLiteralOptions(
            code_action_kind=types.ClientCodeActionKindOptions(value_set=["refactor"])))),
)


@contextlib.asynccontextmanager
async def lsp(*server_args: str, caps: types.ClientCapabilities = CAPS, configuration: dict | None = None,
              configuration_delay_s: float = 0.0, **init_options):
    """The real server over stdio and pytest-lsp's client. `configuration` is what the client answers to
    workspace/configuration (the client then advertises that capability), after `configuration_delay_s`
    seconds (a slow client); custom notifications the server sends are collected in
    `client.notifications` as (method, params)."""
    client = LanguageClient(converter_factory=_converter,
                            configuration=None if configuration is None else {"": configuration})
    features = dict(DEFAULT_CLIENT_FEATURES)
    if configuration_delay_s:
        answer = features[types.WORKSPACE_CONFIGURATION]

        async def slow_configuration(ls: LanguageClient, params: types.ConfigurationParams):
            await asyncio.sleep(configuration_delay_s)
            return answer(ls, params)

        features[types.WORKSPACE_CONFIGURATION] = slow_configuration
    register_lsp_features(client, features)
    client.notifications = []

    @client.feature("tritonrl/modelChanged")
    def _model_changed(params):
        client.notifications.append(("tritonrl/modelChanged", params))

    if configuration is not None:
        caps = attrs.evolve(caps, workspace=attrs.evolve(caps.workspace, configuration=True))
    await client.start_io(sys.executable, "-m", "lsp_server", "--stdio", *server_args, cwd=str(ROOT))
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=caps, root_uri=ROOT.as_uri(), initialization_options=init_options or None))
        yield client
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 30)
        with contextlib.suppress(Exception):
            await client.stop()


def open_doc(client: LanguageClient, uri: str, text: str, language: str = "python", version: int = 1):
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))


async def actions_at(client: LanguageClient, uri: str, line: int, end_line: int | None = None):
    end = line if end_line is None else end_line
    res = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(line, 0), types.Position(end, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    return res or []


async def execute(client: LanguageClient, command: types.Command):
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command.command, arguments=command.arguments))


async def wait_message(client: LanguageClient, pred, timeout: float = JOB_TIMEOUT, start: int = 0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        for m in client.messages[start:]:
            if pred(m.message):
                return m
        await asyncio.sleep(0.2)
    raise AssertionError(f"no such message in {timeout}s; got {[m.message for m in client.messages]}")


def line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines()) if needle in ln)




async def send_raw(client: LanguageClient, body: bytes) -> None:
    """Write one framed message as is (the client's own serialiser refuses malformed ones)."""
    import inspect

    res = client.protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    if inspect.isawaitable(res):
        await res
