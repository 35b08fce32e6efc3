"""`python -m verifier`: the JSON schema, exit codes and bad inputs."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import CORPUS, ROOT

PROBLEM = CORPUS / "problems" / "relu.py"
HONEST = ROOT / "examples" / "relu_candidate.py"
SCHEMA = {"ok": bool, "stage": str, "reasons": list, "trials": dict, "max_abs_err": (float, int, type(None)),
          "max_rel_err": (float, int, type(None)), "shapes": list, "time_ms": (float, type(None)),
          "ref_eager_ms": (float, type(None)), "ref_compile_ms": (float, type(None)),
          "speedup": (float, type(None))}


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verifier", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def check_schema(obj: dict) -> None:
    for key, typ in SCHEMA.items():
        assert key in obj, key
        assert isinstance(obj[key], typ), (key, obj[key])
    assert set(obj["trials"]) >= {"passed", "run"}
    for r in obj["reasons"]:
        assert {"stage", "rule", "message"} <= set(r)


def test_verified_candidate_json_and_exit_0():
    p = cli(PROBLEM, HONEST, "--device", "cpu", "--json")
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)  # exactly one JSON object on stdout
    check_schema(obj)
    assert obj["ok"] and obj["stage"] == "done" and obj["speedup"] is None
    assert obj["shapes"][0]["inputs"] and obj["trials"]["passed"] == obj["trials"]["run"] >= 4


def test_rejected_candidate_exit_1_and_readable_report(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(HONEST.read_text().replace("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)"))
    p = cli(PROBLEM, bad, "--device", "cpu")
    assert p.returncode == 1
    assert "REJECTED at correctness" in p.stdout and "output-mismatch" in p.stdout


@pytest.mark.parametrize("src,stage,rule", [
    ("def f(:\n", "parse", "syntax-error"),
    ("import torch\nclass Other: pass\n", "parse", "missing-modelnew"),
])
def test_bad_candidates_json(tmp_path, src, stage, rule):
    c = tmp_path / "c.py"
    c.write_text(src)
    p = cli(PROBLEM, c, "--json")
    assert p.returncode == 1
    obj = json.loads(p.stdout)
    check_schema(obj)
    assert obj["stage"] == stage and obj["reasons"][0]["rule"] == rule


def test_missing_file_is_usage_error(tmp_path):
    p = cli(tmp_path / "nope.py", HONEST, "--json")
    assert p.returncode == 2 and json.loads(p.stdout)["stage"] == "usage"
    p = cli(PROBLEM, tmp_path / "nope.py")
    assert p.returncode == 2 and "not found" in p.stderr


@pytest.mark.parametrize("problem_src,needle", [
    ("import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x):\n        return x\n"
     "def get_init_inputs():\n    return []\n", "get_inputs"),
    ("import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x):\n        return x\n"
     "def get_inputs():\n    raise RuntimeError('broken problem')\ndef get_init_inputs():\n    return []\n",
     "broken problem"),
    ("this is not python(\n", "syntax error"),
])
def test_problem_that_does_not_load_is_usage_error(tmp_path, problem_src, needle):
    pr = tmp_path / "p.py"
    pr.write_text(problem_src)
    p = cli(pr, HONEST, "--json")
    assert p.returncode == 2, p.stdout + p.stderr
    obj = json.loads(p.stdout)
    assert obj["ok"] is False and needle in obj["error"]


def test_bad_device_flag():
    p = cli(PROBLEM, HONEST, "--device", "tpu")
    assert p.returncode == 2
