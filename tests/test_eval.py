"""`python -m training.eval` end to end: a local OpenAI-compatible server (the model) answers with known
honest and cheating candidates from tests/corpus, the real verifier judges them on CPU (Triton
interpreter), and the metrics in summary.json / table.md follow from those verdicts."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chat_server import ChatServer
from chat_server import start as start_chat_server
from conftest import CORPUS, ROOT
from training import prompts
from training.eval import EvalError, discover

RELU_KEY = "torch.relu(x)"               # a line only the relu problem has (not the prompt's example)
GELU_KEY = 'approximate="tanh"'


def answer(path: Path) -> str:
    return f"<think>\none kernel\n</think>\n```python\n{path.read_text()}```"


def evaluate(*args, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training.eval", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@pytest.fixture()
def server():
    srv, url = start_chat_server()
    ChatServer.reset()
    yield url
    srv.shutdown()


@pytest.fixture()
def two_problems(tmp_path) -> Path:
    d = tmp_path / "level1"
    d.mkdir()
    for name in ("relu", "gelu_tanh"):
        shutil.copy(CORPUS / "problems" / f"{name}.py", d / f"{name}.py")
    return d


def test_metrics_follow_from_verdicts_and_the_run_resumes(server, two_problems, tmp_path):
    ChatServer.reset({
        # relu: one honest candidate, one that is wrong at the edges of the grid
        RELU_KEY: [answer(CORPUS / "honest" / "relu__lambda_grid.py"),
                   answer(CORPUS / "cheats" / "relu__floor_grid.py")],
        # gelu: a cheat the static layer rejects (it has a kernel: valid, never run), and no code at all
        GELU_KEY: [answer(CORPUS / "cheats" / "gelu_tanh__exec_string.py"), "I would use torch.nn.functional.gelu."],
    })
    out = tmp_path / "out"
    args = ["--endpoint", server, "--served-model", "m", "--problems", two_problems, "-n", "2", "-k", "1", "-k", "2",
            "--device", "cpu", "--trials", "1", "--jobs", "2", "--out", out]
    p = evaluate(*args)
    assert p.returncode == 0, p.stderr
    # the model was asked once per problem, for n samples, with the shared prompt
    assert len(ChatServer.requests) == 2 and {r["body"]["n"] for r in ChatServer.requests} == {2}
    sent = {r["body"]["messages"][0]["content"] for r in ChatServer.requests}
    assert sent == {prompts.user_message((two_problems / f).read_text()) for f in ("relu.py", "gelu_tanh.py")}

    rep = json.loads((out / "summary.json").read_text())
    s = rep["levels"]["level1"]
    assert (s["problems"], s["samples"]) == (2, 4)
    assert s["valid"] == 0.75 and s["compiled"] == 0.5 and s["correct"] == 0.25
    assert s["pass@1"] == pytest.approx(0.25) and s["pass@2"] == pytest.approx(0.5)
    assert rep["speed_measured"] is False
    assert s["fast1"] is s["fast2"] is s["geomean_speedup_eager"] is s["geomean_speedup_compile"] is None
    rows = {r["id"]: r for r in rep["rows"]}
    relu, gelu = rows["relu"], rows["gelu_tanh"]
    assert (relu["correct"], relu["n"], relu["pass@1"], relu["pass@2"]) == (1, 2, 0.5, 1.0)
    assert [(x["stage"], x["rule"]) for x in relu["samples"]] == [("done", None), ("correctness", "output-mismatch")]
    assert relu["failing"] is None
    assert [(x["stage"], x["rule"]) for x in gelu["samples"]] == [("static", "forbidden-call"), ("parse", "no-fence")]
    assert gelu["failing"] == {"stage": "static", "rule": "forbidden-call"} and gelu["pass@2"] == 0.0

    table = (out / "table.md").read_text()
    assert "speed not measured" in table and "| level1 | 2 | 4 | 75.0% | 50.0% | 25.0% | — | — |" in table
    assert "| level1 | gelu_tanh | 0/2 | 0.0% | 0.0% | — | — | static/forbidden-call |" in table
    assert table in p.stdout
    assert (out / "summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all(len(json.loads(x)["samples"]) == 2 for x in lines)

    # rerun: nothing to do, nothing asked of the model, same numbers
    ChatServer.requests.clear()
    p = evaluate(*args)
    assert p.returncode == 0, p.stderr
    assert ChatServer.requests == [] and "0 to run" in p.stderr
    assert json.loads((out / "summary.json").read_text())["levels"] == rep["levels"]

    # killed while writing the second problem: its line is cut off; the rerun redoes only that problem
    keep = lines[0] if json.loads(lines[0])["id"] == "gelu_tanh" else lines[1]
    (out / "results.jsonl").write_text(keep + "\n" + lines[1 if keep == lines[0] else 0][:50])
    p = evaluate(*args)
    assert p.returncode == 0, p.stderr
    assert len(ChatServer.requests) == 1 and RELU_KEY in ChatServer.requests[0]["body"]["messages"][0]["content"]
    assert json.loads((out / "summary.json").read_text())["levels"] == rep["levels"]

    # other options into the same --out: refused, not mixed
    p = evaluate(*[a if a != "2" else "3" for a in args])
    assert p.returncode == 2 and "other options" in p.stderr and "n: 2 there, 3 now" in p.stderr


def test_problem_that_does_not_load_is_reported_and_the_rest_evaluated(server, tmp_path):
    d = tmp_path / "probs"
    d.mkdir()
    shutil.copy(CORPUS / "problems" / "relu.py", d / "1_relu.py")
    (d / "2_no_inputs.py").write_text("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                                      "        return x\ndef get_init_inputs():\n    return []\n")
    (d / "3_raises.py").write_text("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                                   "        return x\ndef get_inputs():\n    raise RuntimeError('broken problem')\n"
                                   "def get_init_inputs():\n    return []\n")
    honest = answer(CORPUS / "honest" / "relu__lambda_grid.py")
    ChatServer.reset({RELU_KEY: [honest], "broken problem": [honest]})
    out = tmp_path / "out"
    p = evaluate("--endpoint", server, "--problems", d, "-n", "1", "--device", "cpu", "--trials", "1", "--out", out)
    assert p.returncode == 1, p.stderr
    rep = json.loads((out / "summary.json").read_text())
    assert [r["id"] for r in rep["rows"]] == ["1_relu"] and rep["rows"][0]["correct"] == 1
    errors = {e["id"]: e["error"] for e in rep["errors"]}
    assert "get_inputs" in errors["2_no_inputs"] and "broken problem" in errors["3_raises"]
    assert "## Not evaluated" in (out / "table.md").read_text()
    assert len(ChatServer.requests) == 2  # a problem without get_inputs is refused before asking the model


def test_usage_errors_are_clear(server, two_problems, tmp_path):
    out = tmp_path / "out"
    base = ["--problems", two_problems, "--device", "cpu", "--out", out]
    bad_model = tmp_path / "bad_model"
    bad_model.mkdir()
    (bad_model / "config.json").write_text("{}")
    cases = [
        (["--endpoint", server, "--problems", tmp_path / "nope", "--out", out], "problems folder not found"),
        (["--endpoint", server, *base, "--only", "relu,softmax"], "no problem matches softmax"),
        (["--endpoint", server, *base, "-n", "2", "-k", "5"], "between 1 and -n"),
        (["--model", tmp_path / "no_such_model", *base], "model directory not found"),
        (["--model", bad_model, *base], "cannot load the model"),
        (["--endpoint", "http://127.0.0.1:9", *base, "-n", "1"], "cannot reach"),
        ([*base], "exactly one of --model"),
    ]
    for args, needle in cases:
        p = evaluate(*args)
        assert p.returncode == 2, (args, p.stderr)
        assert needle in p.stderr and "Traceback" not in p.stderr, (args, p.stderr)


def test_discover_levels_and_only(tmp_path):
    for level, names in {"level1": ["10_b.py", "2_a.py", "1_c.py"], "level2": ["1_x.py"]}.items():
        (tmp_path / level).mkdir()
        for n in names:
            (tmp_path / level / n).write_text("")
    assert [pf.key for pf in discover(tmp_path)] == ["level1/1_c", "level1/2_a", "level1/10_b", "level2/1_x"]
    assert [pf.key for pf in discover(tmp_path, ["level2"])] == ["level2/1_x"]
    assert [pf.key for pf in discover(tmp_path, only=["2", "level2/1_x"])] == ["level1/2_a", "level2/1_x"]
    assert [pf.key for pf in discover(tmp_path / "level1", ["L1"], ["10_b"])] == ["L1/10_b"]
    with pytest.raises(EvalError, match="no level level3"):
        discover(tmp_path, ["level3"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(EvalError, match="no problem files"):
        discover(tmp_path / "empty")
    with pytest.raises(EvalError, match="not found"):
        discover(tmp_path / "missing")
