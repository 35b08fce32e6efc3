"""The language server end to end, part 2: cancelling a job, settings through workspace/configuration,
reloading a newly published checkpoint, and bad input of every kind. The real server over stdio,
pytest-lsp's client; the model is tests/chat_server.py or a tiny Hugging Face checkpoint."""
from __future__ import annotations

import asyncio
import json
import shutil
import time

import pytest
from lsprotocol import types

from chat_server import ChatServer as _ChatServer
from chat_server import start as start_chat_server
from conftest import CORPUS, ROOT

pytest.importorskip("pytest_lsp")
from lsp_client import actions_at, execute, line_of, lsp, open_doc, send_raw, wait_message  # noqa: E402

from training import checkpoints  # noqa: E402

PROBLEM = (CORPUS / "problems" / "relu.py").read_text()
GOOD = (ROOT / "examples" / "relu_candidate.py").read_text()
MYRELU = PROBLEM.replace("class Model", "class MyReLU")


def answer(code: str) -> str:
    return f"<think>plan</think>\n```python\n{code}```"


@pytest.fixture()
def chat_server():
    srv, url = start_chat_server()
    _ChatServer.reset([answer(GOOD)])
    yield url
    srv.shutdown()


async def status(client) -> dict:
    return await execute(client, types.Command(title="status", command="tritonrl.status"))


async def wait_for(pred, timeout: float, what: str):
    t0 = time.monotonic()
    while not (got := pred()):
        assert time.monotonic() - t0 < timeout, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)
    return got


def progress_of(client, title_part: str):
    """(token, values) of the progress whose begin title contains `title_part`, or None."""
    for token, values in client.progress_reports.items():
        if values and values[0].kind == "begin" and title_part in values[0].title:
            return token, values
    return None


def generating(client):
    got = progress_of(client, "MyReLU")
    if got and any(v.kind == "report" and (v.message or "").startswith("generating") for v in got[1]):
        return got
    return None


def _field(params, name):
    return params[name] if isinstance(params, dict) else getattr(params, name)


# --- cancellation ----------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_cancel_from_the_progress_stops_before_verifying_and_shows_nothing(tmp_path, chat_server):
    uri = (tmp_path / "mod.py").as_uri()
    db = tmp_path / "feedback.sqlite3"
    _ChatServer.delay_s = 3.0   # a slow model: the job is waiting on it when the user cancels
    async with lsp(endpoint=chat_server, n=1, turns=1, trials=1, device="cpu", feedback_db=str(db)) as client:
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        assert (await execute(client, gen)) == {"started": True}
        token, values = await wait_for(lambda: generating(client), 60, "the generating report")
        assert values[0].cancellable is True
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))

        m = await wait_message(client, lambda m: "cancelled" in m, timeout=60)
        assert "MyReLU" in m.message and "nothing was shown" in m.message
        await wait_for(lambda: client.progress_reports[token][-1].kind == "end", 10, "the end of the progress")
        values = client.progress_reports[token]
        assert values[-1].message == "cancelled"
        assert not any(v.kind == "report" and (v.message or "").startswith("verifying") for v in values)
        assert len(_ChatServer.requests) == 1                     # it had asked the model, then stopped
        assert not any("candidate 1" in lm.message for lm in client.log_messages)  # nothing was verified
        if db.exists():
            from training.feedback import FeedbackStore

            assert FeedbackStore(db).rows() == []                 # nothing logged as shown
        assert [a.title for a in await actions_at(client, uri, 5)] == ["Generate Triton kernel for MyReLU"]
        assert (await status(client))["jobs"] == []
        # the slot is free: a new job starts, and tritonrl.cancel stops it too. Count the messages before
        # the cancel: its message may arrive before the cancel request's own answer is read.
        n = sum("cancelled" in mm.message for mm in client.messages)
        assert (await execute(client, gen)) == {"started": True}
        r = await execute(client, types.Command(title="c", command="tritonrl.cancel", arguments=[uri, "MyReLU"]))
        assert r == {"cancelled": True}
        await wait_for(lambda: sum("cancelled" in mm.message for mm in client.messages) > n or None, 60,
                       "the second cancellation")
        r = await execute(client, types.Command(title="c", command="tritonrl.cancel", arguments=[uri, "MyReLU"]))
        assert r == {"cancelled": False}                          # nothing left to cancel


@pytest.mark.asyncio
async def test_cancel_request_on_a_waiting_generate_cancels_the_job(tmp_path, chat_server):
    uri = (tmp_path / "mod.py").as_uri()
    _ChatServer.delay_s = 3.0
    async with lsp(endpoint=chat_server, n=1, turns=1, trials=1, device="cpu") as client:
        open_doc(client, uri, MYRELU)
        params = types.ExecuteCommandParams(command="tritonrl.generate", arguments=[uri, "MyReLU", 1, {"wait": True}])
        fut = client.protocol.send_request("workspace/executeCommand", params, msg_id="generate-1")
        await wait_for(lambda: generating(client), 60, "the generating report")
        assert not fut.done()                                     # the request is in flight while the job runs
        client.cancel_request(types.CancelParams(id="generate-1"))
        with pytest.raises(Exception, match="(?i)cancel"):
            await asyncio.wait_for(asyncio.wrap_future(fut), 30)
        await wait_message(client, lambda m: "cancelled" in m, timeout=60)
        token, values = progress_of(client, "MyReLU")
        await wait_for(lambda: client.progress_reports[token][-1].kind == "end", 10, "the end of the progress")
        assert client.progress_reports[token][-1].message == "cancelled"

        # without a cancel, the waiting request answers with how the job ended
        _ChatServer.reset(["no code at all"])
        r = await asyncio.wait_for(client.workspace_execute_command_async(params), 120)
        assert r == {"started": True, "outcome": "done, none verified"}


# --- settings ------------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_settings_come_from_workspace_configuration_and_are_reread_on_change(tmp_path, chat_server):
    uri = (tmp_path / "mod.py").as_uri()
    db = tmp_path / "fb.sqlite3"
    config = {"tritonrl": {"endpoint": chat_server, "servedModel": "from-config", "n": 2, "trials": 1, "turns": 1,
                           "device": "cpu", "feedbackDb": str(db), "maxNewTokens": 77, "verifyTimeoutS": 33,
                           "modelTimeoutS": 20}}
    _ChatServer.reset(["no code", "no code either"])
    # initializationOptions say n=3 and a dead endpoint; workspace/configuration wins
    async with lsp("--endpoint", "http://127.0.0.1:9", configuration=config, n=3) as client:
        await wait_for(lambda: any("settings from workspace/configuration" in lm.message
                                   for lm in client.log_messages), 20, "the settings log")
        s = (await status(client))["settings"]
        assert (s["endpoint"], s["served_model"], s["n"], s["trials"], s["device"]) == \
               (chat_server, "from-config", 2, 1, "cpu")
        assert (s["feedback_db"], s["max_new_tokens"], s["verify_timeout_s"], s["model_timeout_s"]) == \
               (str(db), 77, 33.0, 20.0)
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        assert (await execute(client, gen))["started"]
        await wait_message(client, lambda m: "no verified kernel" in m, timeout=60)
        body = _ChatServer.requests[-1]["body"]
        assert (body["model"], body["n"], body["max_tokens"]) == ("from-config", 2, 77)
        st = await status(client)
        assert st["loaded"] and st["model_id"] == "from-config"

        # the user edits the settings: the server re-reads them; bad values are named and ignored
        client.set_configuration({"tritonrl": {**config["tritonrl"], "servedModel": "second", "n": 0,
                                               "device": "tpu", "trials": 2}})
        n_msgs = len(client.messages)
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await wait_for(lambda: any("device = 'tpu'" in m.message for m in client.messages[n_msgs:]), 20,
                       "the bad-value message")
        bad = [m.message for m in client.messages[n_msgs:] if "ignoring the setting" in m.message]
        assert any("n = 0" in m and ">= 1" in m for m in bad) and any("device = 'tpu'" in m for m in bad)
        s = (await status(client))["settings"]
        assert (s["served_model"], s["trials"], s["n"], s["device"]) == ("second", 2, 2, "cpu")
        # a different model: the old backend was dropped and the warm start loads the new one
        t0 = time.monotonic()
        while (st := await status(client))["warm"] == "loading":
            assert time.monotonic() - t0 < 20
            await asyncio.sleep(0.1)
        assert (st["warm"], st["loaded"], st["model_id"]) == ("ready", True, "second")
        assert (await execute(client, gen))["started"]
        await wait_for(lambda: len(_ChatServer.requests) >= 2, 60, "the second model request")
        assert _ChatServer.requests[-1]["body"]["model"] == "second"


@pytest.mark.asyncio
async def test_a_generate_sent_right_after_initialized_waits_for_the_workspace_configuration(tmp_path, chat_server):
    """A job asked for at once (before the client has answered workspace/configuration) runs with the
    client's settings: the endpoint, served model and n exist only in workspace/configuration."""
    uri = (tmp_path / "mod.py").as_uri()
    config = {"tritonrl": {"endpoint": chat_server, "servedModel": "from-config", "n": 2, "trials": 1,
                           "turns": 1, "device": "cpu", "feedbackDb": str(tmp_path / "fb.sqlite3")}}
    _ChatServer.reset(["no code", "no code either"])
    # the command line says a dead endpoint and n=3; the client takes 2 s to answer workspace/configuration
    async with lsp("--endpoint", "http://127.0.0.1:9", "-n", "3", configuration=config,
                   configuration_delay_s=2.0) as client:
        open_doc(client, uri, MYRELU)          # `initialized` went out just now; no waiting for the settings log
        t0 = time.monotonic()
        r = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="tritonrl.generate", arguments=[uri, "MyReLU", 1, {"wait": True}])), 120)
        assert time.monotonic() - t0 >= 1.5                       # it waited for the answer (not the 40 s cap)
        assert r == {"started": True, "outcome": "done, none verified"}
        assert len(_ChatServer.requests) == 1
        body = _ChatServer.requests[0]["body"]
        assert (body["model"], body["n"]) == ("from-config", 2)
        assert not any("no settings from the client" in lm.message for lm in client.log_messages)


@pytest.mark.asyncio
async def test_did_change_configuration_without_workspace_configuration_uses_the_pushed_settings(chat_server):
    async with lsp(endpoint=chat_server) as client:      # this client does not answer workspace/configuration
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"tritonrl": {"n": 5, "feedbackDb": "/tmp/x.sqlite3"}}))
        await wait_for(lambda: any("settings from workspace/didChangeConfiguration" in lm.message
                                   for lm in client.log_messages), 20, "the settings log")
        s = (await status(client))["settings"]
        assert (s["n"], s["feedback_db"]) == (5, "/tmp/x.sqlite3")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=[1, 2]))  # junk
        assert (await status(client))["settings"]["n"] == 5


# --- reload ----------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def tiny_checkpoints(tmp_path_factory):
    """Two tiny, different Hugging Face checkpoints (untrained Llama-style decoders, a trained BPE)."""
    pytest.importorskip("transformers")
    import torch

    from training.sft import CONFIGS, build_model, train_tokenizer

    root = tmp_path_factory.mktemp("ckpts")
    cfg = dict(CONFIGS["tiny"], hidden=32, layers=1, heads=2, intermediate=64, vocab=300, max_length=256)
    tok = train_tokenizer([PROBLEM, GOOD] * 4, cfg["vocab"])
    out = []
    for i in (1, 2):
        torch.manual_seed(i)
        d = root / f"ckpt-{i}"
        build_model(cfg, tok).save_pretrained(str(d))
        tok.save_pretrained(str(d))
        out.append(d)
    return out


@pytest.mark.asyncio
async def test_a_newly_published_checkpoint_is_loaded_and_announced(tmp_path, tiny_checkpoints):
    run = tmp_path / "run"
    run.mkdir()
    first, second = (shutil.copytree(c, run / c.name) for c in tiny_checkpoints)
    checkpoints.publish(run, first, step=1, stage="sft")
    uri = (tmp_path / "mod.py").as_uri()
    async with lsp("--model", str(run), "--device", "cpu", "-n", "1", "--turns", "1", "--trials", "1",
                   "--max-new-tokens", "8") as client:
        st = await status(client)
        assert st["watching"] == str(run) and st["model_id"] == str(first.resolve())

        # a folder that is not a complete checkpoint: LATEST pointing there is ignored
        half = run / "ckpt-half"
        half.mkdir()
        (half / "model.safetensors.partial").write_bytes(b"\0" * 64)
        checkpoints.publish(run, half, step=99)
        checkpoints.publish(run, second, step=2, stage="sft")
        (method, params) = await wait_for(lambda: client.notifications and client.notifications[0], 180,
                                          "tritonrl/modelChanged")
        assert method == "tritonrl/modelChanged"
        assert _field(params, "model_id") == str(second.resolve()) and _field(params, "step") == 2
        m = await wait_message(client, lambda m: "now serving" in m, timeout=10)
        assert str(second.resolve()) in m.message and "(step 2)" in m.message
        st = await status(client)
        assert st["loaded"] and st["model_id"] == str(second.resolve())

        # a broken checkpoint: the server says why and keeps serving the one it had
        broken = run / "ckpt-3"
        broken.mkdir()
        (broken / "config.json").write_text("{this is not json")
        checkpoints.publish(run, broken, step=3)
        m = await wait_message(client, lambda m: "cannot load the new checkpoint" in m, timeout=120)
        assert m.type == types.MessageType.Error and str(broken.resolve()) in m.message
        assert f"still serving {second.resolve()}" in m.message
        assert (await status(client))["model_id"] == str(second.resolve()) and len(client.notifications) == 1

        # and it still serves: a job runs on the loaded model (a tiny untrained one: no code comes out)
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        assert (await execute(client, gen))["started"]
        m = await wait_message(client, lambda m: "no verified kernel" in m or "failed" in m, timeout=180)
        assert "no verified kernel for MyReLU" in m.message and "parse" in m.message


@pytest.fixture(scope="session")
def canned_checkpoint(tmp_path_factory):
    """A real Hugging Face checkpoint (a 1-layer Llama, loaded by the transformers backend) that always
    answers GOOD: the whole answer is one added token; attention and MLP are zero, so the logits depend
    on the last token only: after any prompt token the answer token wins, after the answer token EOS."""
    pytest.importorskip("transformers")
    import torch
    from tokenizers import AddedToken
    from transformers import LlamaConfig, LlamaForCausalLM

    from training.sft import train_tokenizer

    tok = train_tokenizer([PROBLEM] * 2, 300)
    tok.add_tokens([AddedToken(answer(GOOD), normalized=False, special=False)])
    ans, eos = tok.convert_tokens_to_ids(answer(GOOD)), tok.eos_token_id
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=8, intermediate_size=8, num_hidden_layers=1,
                      num_attention_heads=1, num_key_value_heads=1, max_position_embeddings=4096,
                      bos_token_id=tok.bos_token_id, eos_token_id=eos, pad_token_id=tok.pad_token_id,
                      tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        for name, p in model.named_parameters():
            if "norm" in name:
                p.fill_(1.0)
        emb = model.model.embed_tokens.weight
        emb[:, 1] = 1.0                   # every token but the answer: direction 1
        emb[ans] = 0.0
        emb[ans, 0] = 1.0                 # the answer token: direction 0
        model.lm_head.weight[ans, 1] = 20.0
        model.lm_head.weight[eos, 0] = 20.0
    d = tmp_path_factory.mktemp("canned") / "ckpt"
    model.save_pretrained(str(d))
    tok.save_pretrained(str(d))
    return d


@pytest.mark.asyncio
async def test_a_running_job_finishes_with_its_model_and_the_next_job_uses_the_new_checkpoint(
        tmp_path, canned_checkpoint):
    """A checkpoint published while a job runs: that job's results and feedback rows carry the old model
    id, the client gets tritonrl/modelChanged, and the next job runs on the new checkpoint."""
    import sqlite3

    from training.feedback import FeedbackStore

    run = tmp_path / "run"
    old, new = (shutil.copytree(canned_checkpoint, run / name) for name in ("ckpt-1", "ckpt-2"))
    old_id, new_id = str(old.resolve()), str(new.resolve())
    checkpoints.publish(run, old, step=1)
    db = tmp_path / "feedback.sqlite3"
    FeedbackStore(db).close()
    # The test holds the feedback store's write lock until the new model is announced: the job cannot
    # log its rows (the step after verifying, where it names its model) and so cannot finish before
    # the swap, however fast verification is. (SQLite makes the server's insert wait; its timeout is 30 s.)
    gate = sqlite3.connect(str(db), isolation_level=None)
    uri = (tmp_path / "mod.py").as_uri()
    async with lsp("--model", str(run), "--device", "cpu", "-n", "1", "--turns", "1", "--trials", "1",
                   "--max-new-tokens", "16", "--feedback-db", str(db)) as client:
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        gate.execute("BEGIN EXCLUSIVE")
        try:
            assert (await execute(client, gen)) == {"started": True}
            await wait_for(lambda: generating(client), 120, "job 1 generating")  # it holds its backend now
            assert (await status(client))["model_id"] == old_id
            checkpoints.publish(run, new, step=2)
            (method, params) = await wait_for(lambda: client.notifications and client.notifications[0], 60,
                                              "tritonrl/modelChanged")
            assert method == "tritonrl/modelChanged"
            assert _field(params, "model_id") == new_id and _field(params, "step") == 2
            assert (await status(client))["jobs"] != []        # job 1 is still running
        finally:
            gate.execute("ROLLBACK")
            gate.close()
        done1 = await wait_message(client, lambda m: "verified Triton kernel(s) for MyReLU" in m, timeout=180)
        msgs = [m.message for m in client.messages]
        swap = next(i for i, m in enumerate(msgs) if "now serving" in m)
        assert swap < msgs.index(done1.message), msgs          # announced while job 1 ran
        assert f"jobs already running finish with {old_id}" in msgs[swap]
        (row1,) = FeedbackStore(db).rows()
        assert row1["model_id"] == old_id and row1["code"] == GOOD and row1["ok"] == 1
        (apply,) = [a for a in await actions_at(client, uri, 5) if a.title.startswith("Apply verified")]
        assert apply.command.arguments[3] == row1["id"]       # the result shown is that row
        st = await status(client)
        assert st["model_id"] == new_id and st["loaded"] and st["jobs"] == []

        # the next job runs on the new checkpoint
        assert (await execute(client, gen)) == {"started": True}
        await wait_message(client, lambda m: "verified Triton kernel(s) for MyReLU" in m, timeout=180,
                           start=len(client.messages))
        row1_again, row2 = FeedbackStore(db).rows()
        assert row1_again["id"] == row1["id"] and row1_again["model_id"] == old_id
        assert row2["model_id"] == new_id and row2["code"] == GOOD
        assert len(client.notifications) == 1


# --- robustness --------------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_bad_input_of_every_kind_and_the_server_keeps_answering(tmp_path):
    uri = (tmp_path / "mod.py").as_uri()
    broken_model = tmp_path / "broken-model"
    broken_model.mkdir()
    (broken_model / "config.json").write_text(json.dumps({"model_type": "no-such-architecture"}))
    async with lsp("--model", str(broken_model), "--trials", "1", "-n", "1", "--turns", "1") as client:
        open_doc(client, uri, MYRELU)
        here = line_of(MYRELU, "class MyReLU")

        async def still_answers():
            assert [a.title for a in await actions_at(client, uri, here)] == ["Generate Triton kernel for MyReLU"]

        # malformed requests: JSON-RPC errors, not a dead server
        await send_raw(client, b'{"jsonrpc": "2.0", "id": "bad-1", "method": "textDocument/codeAction", '
                               b'"params": {"textDocument": {}}}')
        await send_raw(client, b'{"jsonrpc": "2.0", "id": "bad-2", "method": "textDocument/codeAction", '
                               b'"params": "not an object"}')
        await send_raw(client, b'{this is not JSON')
        await send_raw(client, b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"x": 1}}')
        with pytest.raises(Exception):
            await client.workspace_execute_command_async(types.ExecuteCommandParams(command="tritonrl.nope"))
        await still_answers()
        for args in ([], [42], [uri], [None, None, None, "x"]):
            r = await execute(client, types.Command(title="g", command="tritonrl.generate", arguments=args))
            assert r["started"] is False, args
        for cmd in ("tritonrl.apply", "tritonrl.reject", "tritonrl.cancel"):
            await execute(client, types.Command(title="x", command=cmd, arguments=[]))
        await wait_message(client, lambda m: "apply expects the arguments [uri, class name" in m, timeout=10)
        await still_answers()

        # an unopened URI, a non-Python document, a range past the end, a negative range
        assert await actions_at(client, (tmp_path / "nowhere.py").as_uri(), 3) == []
        notes = (tmp_path / "notes.md").as_uri()
        open_doc(client, notes, MYRELU, language="markdown")
        assert await actions_at(client, notes, here) == []
        r = await execute(client, types.Command(title="g", command="tritonrl.generate", arguments=[notes, "MyReLU"]))
        assert r == {"started": False, "reason": "not a Python document"}
        assert await actions_at(client, uri, 10_000) == []

        # a huge document (25k lines, 1000 classes, a syntax error in the middle): the right class, quickly
        parts = [MYRELU]
        for i in range(1000):
            parts.append(f"\n\nclass Big{i}(nn.Module):\n    def forward(self, x):\n        y = x * {i}\n"
                         f"        return y\n\n\ndef helper_{i}(x):\n    return (x +\n{i})\n")
            if i == 500:
                parts.append("\ndef broken(:\n    pass\n")
        huge = "".join(parts)
        big_uri = (tmp_path / "huge.py").as_uri()
        open_doc(client, big_uri, huge)
        assert len(huge.splitlines()) > 10_000
        line = line_of(huge, "y = x * 777")
        assert [a.title for a in await actions_at(client, big_uri, line)] == ["Generate Triton kernel for Big777"]
        assert await actions_at(client, big_uri, line_of(huge, "def broken(")) == []

        # a model that fails to load: the job says why, the server stays up, and the slot frees
        gen = (await actions_at(client, uri, here))[0].command
        assert (await execute(client, gen))["started"]
        m = await wait_message(client, lambda m: m.startswith("TritonRL: cannot load the model"), timeout=180)
        assert m.type == types.MessageType.Error and str(broken_model) in m.message
        await still_answers()
        assert (await status(client))["loaded"] is False


@pytest.mark.asyncio
async def test_a_changed_feedback_path_takes_new_rows_and_decisions_still_reach_the_old_ones(tmp_path, chat_server):
    """The user points feedbackDb elsewhere mid-session: the next suggestion is logged in the new
    store; replacing the earlier one marks it rejected in the old store, where it was logged."""
    from training.feedback import FeedbackStore

    uri = (tmp_path / "mod.py").as_uri()
    db1, db2 = tmp_path / "one.sqlite3", tmp_path / "two.sqlite3"
    config = {"tritonrl": {"endpoint": chat_server, "servedModel": "m", "n": 1, "turns": 1, "trials": 1,
                           "device": "cpu", "feedbackDb": str(db1)}}
    async with lsp(configuration=config) as client:
        await wait_for(lambda: any("settings from workspace/configuration" in lm.message
                                   for lm in client.log_messages), 20, "the settings log")
        open_doc(client, uri, MYRELU)
        gen = (await actions_at(client, uri, line_of(MYRELU, "class MyReLU")))[0].command
        assert (await execute(client, gen))["started"]
        await wait_message(client, lambda m: "1 verified Triton kernel" in m, timeout=120)
        (first,) = FeedbackStore(db1).rows()
        assert first["decision"] == "ignored"

        client.set_configuration({"tritonrl": {**config["tritonrl"], "feedbackDb": str(db2)}})
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        for _ in range(100):
            if (await status(client))["settings"]["feedback_db"] == str(db2):
                break
            await asyncio.sleep(0.1)
        assert (await status(client))["settings"]["feedback_db"] == str(db2)
        n_msgs = len(client.messages)
        assert (await execute(client, gen))["started"]
        await wait_message(client, lambda m: "1 verified Triton kernel" in m, start=n_msgs, timeout=120)
        (second,) = FeedbackStore(db2).rows()
        assert second["decision"] == "ignored" and second["id"] != first["id"]
        assert [r["decision"] for r in FeedbackStore(db1).rows()] == ["rejected"]  # replaced, in its own store

        # accepting the new suggestion records it in the new store
        (apply,) = [a for a in await actions_at(client, uri, line_of(MYRELU, "class MyReLU"))
                    if a.title.startswith("Apply verified")]
        await execute(client, apply.command)
        assert [r["decision"] for r in FeedbackStore(db2).rows()] == ["accepted"]
        assert [r["decision"] for r in FeedbackStore(db1).rows()] == ["rejected"]


@pytest.mark.asyncio
async def test_odd_clients_get_an_answer_to_every_request_and_clear_messages(tmp_path):
    """Found by probing with hand-written clients: each of these used to hang the request, show a pygls
    "Error in server: ..." or corrupt the document."""
    from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest

    uri = (tmp_path / "mod.py").as_uri()
    ff = MYRELU.replace("\n\n\nclass MyReLU", "\n\n\x0c\nclass MyReLU")  # a form feed (PEP 8 allows them)
    async with lsp("--endpoint", "http://127.0.0.1:9") as client:
        open_doc(client, uri, ff)
        here = line_of(ff.replace("\x0c", ""), "class MyReLU")  # as LSP counts lines: \x0c is no line break
        assert [a.title for a in await actions_at(client, uri, here)] == ["Generate Triton kernel for MyReLU"]

        # a request whose params break the schema is answered with InvalidParams (it used to get no answer)
        start = types.Position(0, 0)
        object.__setattr__(start, "line", -1)  # past lsprotocol's validator: a buggy client's negative line
        bad = types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(
            start, types.Position(2, 0)), context=types.CodeActionContext(diagnostics=[]))
        with pytest.raises(JsonRpcInvalidParams, match="range.start"):
            await asyncio.wait_for(client.text_document_code_action_async(bad), 10)

        # a didChange for a document never opened: ignored, no error shown
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=(tmp_path / "never.py").as_uri(), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="x")]))
        # settings that overflow or are not finite are bad values; the others in the message still apply
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"n": 10 ** 400, "verifyTimeoutS": float("inf"), "turns": 3}))
        st = await status(client)
        assert st["settings"]["turns"] == 3 and st["settings"]["verify_timeout_s"] is None
        # a command with the wrong arguments says what it takes
        await execute(client, types.Command(title="x", command="tritonrl.cancel", arguments=[{}, {}]))
        await wait_message(client, lambda m: "cancel expects the arguments [uri, class name]" in m, timeout=10)
        assert not [m.message for m in client.messages if "Error in server" in m.message]
        assert [a.title for a in await actions_at(client, uri, here)] == ["Generate Triton kernel for MyReLU"]

        # after shutdown a request is answered InvalidRequest, not left waiting
        await client.shutdown_async(None)  # the request only (shutdown_session also sends exit)
        with pytest.raises(JsonRpcInvalidRequest):
            await asyncio.wait_for(client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="tritonrl.status")), 10)
        client.exit(None)
        await asyncio.wait_for(client._server.wait(), 10)  # and `exit` still ends it
        assert client._server.returncode == 0  # exit after shutdown: 0
