"""The TritonRL language server end to end: the real server process over stdio, driven by
pytest-lsp's client, against an OpenAI-compatible HTTP server started by the test."""
from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import time

import pytest
from lsprotocol import types

from chat_server import ChatServer as _ChatServer
from chat_server import start as start_chat_server
from conftest import CORPUS, ROOT

pytest_lsp = pytest.importorskip("pytest_lsp")
from pytest_lsp import LanguageClient  # noqa: E402
from pytest_lsp.client import register_lsp_features  # noqa: E402

from lsp_client import CAPS, _converter, actions_at, execute, line_of, lsp, open_doc, wait_message  # noqa: E402

PROBLEM = (CORPUS / "problems" / "relu.py").read_text()
GOOD = (ROOT / "examples" / "relu_candidate.py").read_text()
MYRELU = PROBLEM.replace("class Model", "class MyReLU") + "\n\ndef broken(:\n    pass\n"  # a syntax error elsewhere
NO_INPUTS = "import torch\nimport torch.nn as nn\n\n\nclass Scale(nn.Module):\n    def forward(self, x):\n" \
            "        return x * 2\n"


def answer(code: str) -> str:
    return f"<think>plan</think>\n```python\n{code}```"


# --- a local OpenAI-compatible server ------------------------------------------------------------
@pytest.fixture()
def chat_server():
    srv, url = start_chat_server()
    _ChatServer.reset([answer(GOOD)])
    yield url
    srv.shutdown()


# --- tests ---------------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_code_actions_inside_module_classes_only(tmp_path):
    uri = (tmp_path / "mod.py").as_uri()
    async with lsp("--endpoint", "http://127.0.0.1:9") as client:
        open_doc(client, uri, MYRELU)
        acts = await actions_at(client, uri, line_of(MYRELU, "return torch.relu"))
        assert [a.title for a in acts] == ["Generate Triton kernel for MyReLU"]
        a = acts[0]
        assert isinstance(a, types.CodeAction) and a.kind == "refactor.rewrite.tritonrl"
        assert a.command.command == "tritonrl.generate" and list(a.command.arguments) == [uri, "MyReLU", 1]
        assert await actions_at(client, uri, 0) == []                       # the import line
        assert await actions_at(client, uri, line_of(MYRELU, "def get_inputs")) == []
        # a selection that overlaps the class counts
        assert len(await actions_at(client, uri, 0, line_of(MYRELU, "class MyReLU"))) == 1
        # a non-Python document, an unopened URI that does not exist: nothing, and no crash
        open_doc(client, (tmp_path / "notes.txt").as_uri(), MYRELU, language="plaintext")
        assert await actions_at(client, (tmp_path / "notes.txt").as_uri(), 5) == []
        assert await actions_at(client, (tmp_path / "nowhere.py").as_uri(), 5) == []
        # an unopened file on disk is read from disk
        disk = tmp_path / "disk.py"
        disk.write_text(MYRELU)
        assert len(await actions_at(client, disk.as_uri(), line_of(MYRELU, "class MyReLU"))) == 1
        # a generate command for an unknown document is a message, and the server keeps answering
        r = await execute(client, types.Command(title="x", command="tritonrl.generate",
                                                  arguments=[(tmp_path / "nowhere.py").as_uri(), "A"]))
        assert r["started"] is False
        assert len(await actions_at(client, uri, line_of(MYRELU, "class MyReLU"))) == 1


@pytest.mark.asyncio
async def test_generate_verifies_and_offers_the_kernel_file(tmp_path, chat_server):
    uri = (tmp_path / "mod.py").as_uri()
    _ChatServer.delay_s = 1.0  # keeps the job busy long enough for the duplicate request below
    db = tmp_path / "feedback.sqlite3"
    async with lsp(endpoint=chat_server, served_model="served", n=1, turns=1, trials=1, device="cpu",
                   feedback_db=str(db)) as client:
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        assert (await execute(client, gen)) == {"started": True}
        # a second request for the same class while the job runs: a message, no second job
        assert (await execute(client, gen))["started"] is False
        await wait_message(client, lambda m: "already being generated" in m)
        # other requests are answered while the job runs
        assert len(await actions_at(client, uri, 0, 30)) == 1

        done = await wait_message(client, lambda m: "verified Triton kernel" in m or "no verified" in m)
        assert "1 verified Triton kernel" in done.message, done.message
        assert "correctness checked by the CPU interpreter, speed not measured" in done.message
        # and at which sizes: the interpreter runs the module scaled down through its size constants
        assert re.search(r"; checked at \w+=\d+.* and other sizes\)", done.message), done.message
        req = _ChatServer.requests[0]["body"]
        assert req["model"] == "served" and req["n"] == 1

        # progress: begin, reports for generating and verifying, end
        await asyncio.sleep(0.5)
        (reports,) = [v for v in client.progress_reports.values() if v]
        kinds = [r.kind for r in reports]
        assert kinds[0] == "begin" and kinds[-1] == "end" and "MyReLU" in reports[0].title
        msgs = [r.message for r in reports if r.kind == "report"]
        assert any(m.startswith("generating") for m in msgs) and "verifying 1 candidates" in msgs
        # then per candidate, in order: compiling and correctness, the verdict (no timing on CPU)
        per = [m for m in msgs if m.startswith("verifying candidate 1 of 1: ")]
        assert per == ["verifying candidate 1 of 1: compiling, checking correctness",
                       "verifying candidate 1 of 1: verified"], msgs

        acts = await actions_at(client, uri, line_of(MYRELU, "return torch.relu"))
        titles = [a.title for a in acts]
        assert titles[0] == "Generate Triton kernel for MyReLU" and titles[-1] == "Reject Triton suggestions"
        (apply,) = [a for a in acts if a.title.startswith("Apply verified Triton kernel")]
        # trials=1 at the base shapes, plus the verifier's perturbed-size trials: all of them passed
        m = re.fullmatch(r"Apply verified Triton kernel \(verified \(speed not measured\), (\d+)/(\d+) trials\)",
                         apply.title)
        assert m and m[1] == m[2] and int(m[1]) >= 1, apply.title
        create, edit = apply.edit.document_changes
        target = (tmp_path / "mod_triton.py").as_uri()
        assert isinstance(create, types.CreateFile) and create.uri == target and create.options.overwrite
        assert isinstance(edit, types.TextDocumentEdit) and edit.text_document.uri == target
        assert [e.new_text for e in edit.edits] == [GOOD]
        assert apply.command.command == "tritonrl.apply"

        # the suggestion shown is in the feedback store; applying it records the acceptance
        from training.feedback import FeedbackStore

        (row,) = FeedbackStore(db).rows()
        assert row["decision"] == "ignored" and row["class_name"] == "MyReLU" and row["code"] == GOOD
        assert row["ok"] == 1 and "class MyReLU" in row["problem"] and row["prompt"] and row["model_id"] == "served"

        # applying after the document changed: a message, and the file is still offered
        assert (await execute(client, apply.command))["stale"] is False
        assert FeedbackStore(db).rows()[0]["decision"] == "accepted"
        n_msgs = len(client.messages)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=MYRELU + "\n# edited\n")]))
        r = await execute(client, apply.command)
        assert r == {"stale": True, "file": target}
        await wait_message(client, lambda m: "changed since the kernel was generated" in m, start=n_msgs, timeout=10)
        assert any(a.title.startswith("Apply verified") for a in await actions_at(client, uri, 5))

        # reject: the apply actions go away
        reject = next(a for a in acts if a.title == "Reject Triton suggestions").command
        assert (await execute(client, reject)) == {"rejected": True}
        assert FeedbackStore(db).rows()[0]["decision"] == "accepted"  # an applied suggestion stays accepted
        assert [a.title for a in await actions_at(client, uri, 5)] == ["Generate Triton kernel for MyReLU"]


@pytest.mark.asyncio
async def test_the_first_verified_kernel_is_offered_while_the_others_still_verify(tmp_path, chat_server):
    """A candidate that hangs until its sandbox timeout must not hold back one that verified."""
    uri = (tmp_path / "mod.py").as_uri()
    db = tmp_path / "feedback.sqlite3"
    hang = GOOD.replace("        x = x.contiguous()\n", "        while x.numel() > 0:\n            pass\n")
    assert hang != GOOD
    _ChatServer.replies = [answer(GOOD), answer(hang)]
    timeout_s = 40.0
    async with lsp(endpoint=chat_server, n=2, turns=1, trials=1, device="cpu", verify_timeout_s=timeout_s,
                   feedback_db=str(db)) as client:
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        t0 = time.monotonic()
        assert (await execute(client, gen))["started"]
        ready = await wait_message(client, lambda m: "is ready" in m or "no verified" in m)
        t_ready = time.monotonic() - t0
        assert "a verified Triton kernel for MyReLU is ready" in ready.message, ready.message
        assert "still verifying 1 more" in ready.message and "CPU interpreter" in ready.message
        # offered now: the code action is there while the job (the hanging candidate) still runs
        acts = await actions_at(client, uri, line_of(MYRELU, "class MyReLU"))
        (apply,) = [a for a in acts if a.title.startswith("Apply verified Triton kernel")]
        assert [e.new_text for e in apply.edit.document_changes[1].edits] == [GOOD]
        assert not any("verified Triton kernel(s) for" in m.message for m in client.messages), \
            "the job ended before the hanging candidate's timeout"

        done = await wait_message(client, lambda m: "verified Triton kernel(s) for" in m)
        t_done = time.monotonic() - t0
        assert "1 verified Triton kernel(s) for MyReLU" in done.message
        assert t_done - t_ready > 5, (t_ready, t_done)  # the offer came well before the batch ended
        # logged once, though offered twice (when it verified and when the job ended)
        from training.feedback import FeedbackStore

        (row,) = FeedbackStore(db).rows()
        assert row["code"] == GOOD and row["decision"] == "ignored"
        acts = await actions_at(client, uri, line_of(MYRELU, "class MyReLU"))
        assert len([a for a in acts if a.title.startswith("Apply verified Triton kernel")]) == 1


@pytest.mark.asyncio
async def test_failed_candidates_are_listed_by_layer(tmp_path, chat_server):
    uri = (tmp_path / "mod.py").as_uri()
    bad = GOOD.replace("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)")
    _ChatServer.replies = ["no code here", answer(bad)]
    async with lsp("--endpoint", chat_server, "-n", "2", "--turns", "1", "--trials", "1") as client:
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        assert (await execute(client, gen))["started"]
        m = await wait_message(client, lambda m: "verified" in m)
        assert m.type == types.MessageType.Warning
        assert "no verified kernel for MyReLU" in m.message and "1: parse (no-fence)" in m.message
        assert "2: correctness (" in m.message and "CPU interpreter" in m.message
        acts = await actions_at(client, uri, line_of(MYRELU, "class MyReLU"))
        assert [a.title for a in acts] == ["Generate Triton kernel for MyReLU"]


@pytest.mark.asyncio
async def test_module_without_inputs_names_get_inputs(tmp_path, chat_server):
    uri = (tmp_path / "scale.py").as_uri()
    async with lsp(endpoint=chat_server, trials=1, n=1, turns=1) as client:
        open_doc(client, uri, NO_INPUTS)
        (gen,) = await actions_at(client, uri, line_of(NO_INPUTS, "return x * 2"))
        assert (await execute(client, gen.command))["started"]
        m = await wait_message(client, lambda m: "get_inputs" in m, timeout=60)
        assert m.type == types.MessageType.Warning
        # the stub to paste goes to the log
        t0 = time.monotonic()
        while not any("def get_inputs_Scale" in lm.message for lm in client.log_messages):
            assert time.monotonic() - t0 < 10, [lm.message for lm in client.log_messages]
            await asyncio.sleep(0.1)
        assert _ChatServer.requests == []  # the model was never asked


BROKEN_FORWARD = PROBLEM.replace("class Model", "class Shapes").replace("def get_inputs():\n",
                                                                      "def get_inputs():\n    return [torch.randn(3, 5), torch.randn(4, 2)]\n")


@pytest.mark.asyncio
async def test_a_module_whose_own_forward_fails_is_a_warning_not_a_traceback(tmp_path, chat_server):
    """The user's module does not run on its own inputs (here: forward gets two tensors it does not take):
    there is nothing to verify against; the user is told why, and the server keeps serving."""
    uri = (tmp_path / "shapes.py").as_uri()
    assert "randn(3, 5)" in BROKEN_FORWARD
    async with lsp(endpoint=chat_server, trials=1, n=1, turns=1) as client:
        open_doc(client, uri, BROKEN_FORWARD)
        gen = (await actions_at(client, uri, line_of(BROKEN_FORWARD, "class Shapes")))[0].command
        assert (await execute(client, gen))["started"]
        m = await wait_message(client, lambda m: "cannot verify kernels for Shapes" in m, timeout=120)
        assert m.type == types.MessageType.Warning and "does not run" in m.message, m.message
        assert not any("Traceback" in lm.message for lm in client.log_messages)
        await asyncio.sleep(0.3)
        assert all(v and v[-1].kind == "end" for v in client.progress_reports.values())
        assert len(await actions_at(client, uri, line_of(BROKEN_FORWARD, "class Shapes"))) == 1


@pytest.mark.asyncio
async def test_bad_endpoint_and_bad_model_are_errors_and_the_server_stays_up(tmp_path):
    uri = (tmp_path / "mod.py").as_uri()
    async with lsp(endpoint="http://127.0.0.1:9", trials=1, n=1, turns=1) as client:
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        assert (await execute(client, gen))["started"]
        m = await wait_message(client, lambda m: "cannot reach" in m or "failed" in m, timeout=60)
        assert m.type == types.MessageType.Error and "127.0.0.1:9" in m.message
        assert len(await actions_at(client, uri, line_of(MYRELU, "class MyReLU"))) == 1
        # the job slot is free again
        t0 = time.monotonic()
        while (await execute(client, gen))["started"] is False:
            assert time.monotonic() - t0 < 10
            await asyncio.sleep(0.2)

    async with lsp("--model", str(tmp_path / "no-such-checkpoint"), "--trials", "1") as client:
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        assert (await execute(client, gen))["started"]
        m = await wait_message(client, lambda m: m.startswith("TritonRL: cannot load the model"), timeout=120)
        assert m.type == types.MessageType.Error and "not found" in m.message
        assert len(await actions_at(client, uri, line_of(MYRELU, "class MyReLU"))) == 1


@pytest.mark.asyncio
async def test_an_exception_inside_a_job_is_reported_and_the_server_keeps_answering(tmp_path, chat_server):
    uri = (tmp_path / "mod.py").as_uri()
    _ChatServer.raw = b"this is not JSON"  # the backend's json.loads raises inside the job thread
    async with lsp(endpoint=chat_server, trials=1, n=1, turns=1) as client:
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        assert (await execute(client, gen))["started"]
        m = await wait_message(client, lambda m: "failed" in m, timeout=60)
        assert m.type == types.MessageType.Error and "JSONDecodeError" in m.message
        assert len(await actions_at(client, uri, line_of(MYRELU, "class MyReLU"))) == 1
        assert any("Traceback" in lm.message for lm in client.log_messages)
        # the progress bar was ended
        await asyncio.sleep(0.3)
        assert all(v and v[-1].kind == "end" for v in client.progress_reports.values())

        _ChatServer.raw = json.dumps({"choices": []}).encode()  # a server that answers nothing
        t0 = time.monotonic()
        while (await execute(client, gen))["started"] is False:
            assert time.monotonic() - t0 < 10
            await asyncio.sleep(0.2)
        await wait_message(client, lambda m: "no candidates" in m, timeout=60)


@pytest.mark.asyncio
async def test_tcp_transport(tmp_path):
    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "lsp_server", "--tcp", f"127.0.0.1:{port}",
                             "--endpoint", "http://127.0.0.1:9"], cwd=ROOT, stderr=subprocess.DEVNULL)
    client = LanguageClient(converter_factory=_converter)
    register_lsp_features(client)
    try:
        t0 = time.monotonic()
        while True:
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                assert time.monotonic() - t0 < 30 and proc.poll() is None
                await asyncio.sleep(0.2)
        await client.initialize_session(types.InitializeParams(capabilities=CAPS))
        uri = (tmp_path / "mod.py").as_uri()
        open_doc(client, uri, MYRELU)
        acts = await actions_at(client, uri, line_of(MYRELU, "class MyReLU"))
        assert [a.title for a in acts] == ["Generate Triton kernel for MyReLU"]
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 10)
        with contextlib.suppress(Exception):
            await client.stop()
        proc.kill()
        proc.wait(10)


def test_sibling_uri_and_settings():
    from lsp_server.server import Settings, sibling_uri

    assert sibling_uri("file:///a/b/mod.py") == "file:///a/b/mod_triton.py"
    assert sibling_uri("file:///a/b/my%20mod.py") == "file:///a/b/my%20mod_triton.py"
    assert sibling_uri("file:///a/b/script") == "file:///a/b/script_triton.py"
    s = Settings(endpoint="http://x", n=4)
    s.update({"n": "2", "trials": 1, "servedModel": "m", "unknown": 3})
    assert (s.n, s.trials, s.served_model, s.endpoint) == (2, 1, "m", "http://x")
    s.update({"tritonrl": {"device": "cpu"}})
    s.update(None)
    assert s.device == "cpu"
    assert s.lazy_baseline is None  # the verifier's default unless set
    changed, errors = s.update({"lazyBaseline": True})
    assert changed == {"lazy_baseline"} and s.lazy_baseline is True and not errors
    changed, errors = s.update({"lazyBaseline": "yes"})
    assert not changed and errors == ["lazyBaseline = 'yes': must be true or false"]


def test_cpu_note_only_for_candidates_the_cpu_interpreter_ran():
    """Seen on the H200: GPU-verified jobs said "checked by the CPU interpreter" because an unparsable
    response's verdict carried the default device."""
    from lsp_server.server import ran_on_cpu
    from training import prompts
    from verifier import Verdict

    unparsable = prompts.parse_failure_verdict(prompts.parse_response("<think> cut off", truncated=True))
    static = Verdict(device="cuda").fail("static", "no-kernel", "x")
    gpu = Verdict(device="cuda").fail("correctness", "output-mismatch", "x")
    assert not ran_on_cpu([unparsable, static, gpu])
    assert ran_on_cpu([unparsable, Verdict(device="cpu").fail("correctness", "output-mismatch", "x")])
    assert not ran_on_cpu([unparsable, Verdict(device="cpu").fail("static", "no-kernel", "x")])


def test_wait_for_settings_returns_at_once_without_workspace_configuration_and_gives_up_after_its_timeout():
    from lsp_server.server import TritonRLServer

    async def main():
        ls = TritonRLServer()                 # a client without workspace/configuration: nothing to wait for
        t0 = time.monotonic()
        await ls.wait_for_settings(30)
        assert time.monotonic() - t0 < 1
        ls.client_config = True               # one that never sends `initialized`: the timeout ends the wait
        t0 = time.monotonic()
        await ls.wait_for_settings(0.2)
        assert 0.15 < time.monotonic() - t0 < 5
        ls = TritonRLServer()
        ls.client_config = True               # the settings arrive: the wait ends then
        asyncio.get_running_loop().call_later(0.1, ls.settings_ready.set)
        t0 = time.monotonic()
        await ls.wait_for_settings(30)
        assert time.monotonic() - t0 < 5

    asyncio.run(main())


async def _status(client) -> dict:
    return await execute(client, types.Command(title="s", command="tritonrl.status"))


@pytest.mark.asyncio
async def test_warm_start_loads_the_model_before_any_request(tmp_path):
    """The embedded default model is loaded once `initialized` has read the settings, with no request;
    warmStart off leaves it to the first request; a model that cannot load is a warning at start."""
    async with lsp(device="cpu", feedback_db=str(tmp_path / "fb.sqlite3")) as client:
        t0 = time.monotonic()
        while (st := await _status(client))["warm"] == "loading":
            assert time.monotonic() - t0 < 120, st
            await asyncio.sleep(0.2)
        assert st["warm"] == "ready" and st["loaded"] is True and st["jobs"] == []
        assert any("warm start: model" in m.message and "loaded in" in m.message for m in client.log_messages)

    async with lsp(device="cpu", warm_start=False) as client:
        await asyncio.sleep(1.0)  # long enough for a warm start to have begun (the case above: at once)
        st = await _status(client)
        assert (st["warm"], st["loaded"], st["settings"]["warm_start"]) == ("off", False, False)

    async with lsp("--model", str(tmp_path / "no-such-checkpoint"), device="cpu") as client:
        m = await wait_message(client, lambda m: "did not load at start" in m, timeout=60)
        assert m.type == types.MessageType.Warning and "no-such-checkpoint" in m.message
        st = await _status(client)
        assert (st["warm"], st["loaded"]) == ("failed", False)


def test_the_extension_contributes_every_server_setting():
    """package.json's settings and config.ts's SERVER_KEYS name exactly the server's Settings (camelCase)."""
    from lsp_server.settings import Settings, _camel

    server = {_camel(k) for k in Settings.keys()}
    ext = ROOT / "vscode-extension"
    contributed = {k.split(".", 1)[1] for k in
                   json.loads((ext / "package.json").read_text())["contributes"]["configuration"]["properties"]}
    assert contributed - {"pythonPath", "serverPath"} == server
    keys = re.search(r"SERVER_KEYS = \[(.*?)\] as const", (ext / "src" / "config.ts").read_text(), re.S).group(1)
    assert set(re.findall(r'"(\w+)"', keys)) == server


def test_exit_without_shutdown_ends_the_server_with_code_1():
    """LSP: `exit` after `shutdown` ends the server with 0, an `exit` alone with 1 (a client that did not shut it
    down cleanly); over raw stdio, as any client speaks it."""
    import json
    import subprocess

    def frame(o: dict) -> bytes:
        b = json.dumps(o).encode()
        return b"Content-Length: %d\r\n\r\n" % len(b) + b

    init = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    init += frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    shutdown = frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    exit_ = frame({"jsonrpc": "2.0", "method": "exit"})
    for msgs, code in ((init + exit_, 1), (init + shutdown + exit_, 0)):
        p = subprocess.run([sys.executable, "-m", "lsp_server", "--stdio", "--endpoint", "http://127.0.0.1:9"],
                           input=msgs, capture_output=True, cwd=ROOT, timeout=60)
        assert p.returncode == code, p.stderr[-2000:]
        assert b'"id": 1' in p.stdout.replace(b'"id":1', b'"id": 1')  # initialize was answered first
