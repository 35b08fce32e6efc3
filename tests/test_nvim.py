"""A real editor's LSP client: headless Neovim (Debian's `neovim` package; scripts/setup.sh installs it)
drives the real server against the local fake model endpoint (tests/chat_server.py)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from chat_server import ChatServer
from chat_server import start as start_chat_server
from conftest import CORPUS, ROOT

NVIM = shutil.which("nvim")
pytestmark = pytest.mark.skipif(NVIM is None, reason="needs Neovim (`apt-get install -y neovim`; scripts/setup.sh "
                                                     "installs it when run as root on a Debian-like system)")
SCRIPT = ROOT / "tests" / "nvim" / "code_actions.lua"
GOOD = (ROOT / "examples" / "relu_candidate.py").read_text()


def test_neovim_lists_generates_and_applies_a_verified_kernel(tmp_path):
    src = (CORPUS / "problems" / "relu.py").read_text().replace("class Model", "class MyReLU")
    path = tmp_path / "mod.py"
    path.write_text(src)
    line = next(i for i, ln in enumerate(src.splitlines()) if "return torch.relu" in ln)
    srv, url = start_chat_server()
    ChatServer.reset([f"<think>plan</think>\n```python\n{GOOD}```"])
    out = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "lsp_server", "--stdio", "--endpoint", url, "-n", "1", "--turns", "1",
           "--trials", "1", "--device", "cpu", "--feedback-db", str(tmp_path / "fb.sqlite3")]
    env = {**os.environ, "TRITONRL_CMD": json.dumps(cmd), "TRITONRL_CWD": str(ROOT), "TRITONRL_FILE": str(path),
           "TRITONRL_LINE": str(line), "TRITONRL_OUT": str(out), "XDG_STATE_HOME": str(tmp_path / "state")}
    try:
        p = subprocess.run([NVIM, "--headless", "--clean", "-n", "-c", f"luafile {SCRIPT}"], env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    finally:
        srv.shutdown()
    assert out.exists(), f"nvim wrote no report (rc {p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}"
    report = json.loads(out.read_text())
    steps = {s["name"]: s["value"] for s in report["steps"]}
    assert "error" not in report, report
    assert steps["initialized"] is True
    assert steps["titles"] == ["Generate Triton kernel for MyReLU"]
    assert steps["generate"] == {"started": True, "outcome": "done"}, report["messages"]
    assert any(m.startswith("TritonRL: 1 verified Triton kernel(s) for MyReLU") for m in report["messages"])
    after = steps["titles_after"]
    assert after[0] == "Generate Triton kernel for MyReLU" and after[-1] == "Reject Triton suggestions"
    assert any(t.startswith("Apply verified Triton kernel (verified") for t in after), after
    # Neovim applied the WorkspaceEdit (CreateFile + text edit): the sibling file holds the kernel (Neovim
    # ends the last line of what it writes with a newline of its own, hence the rstrip)
    assert steps["written"] == str(tmp_path / "mod_triton.py")
    assert (tmp_path / "mod_triton.py").read_text().rstrip("\n") == GOOD.rstrip("\n")
