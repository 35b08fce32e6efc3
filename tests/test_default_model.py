"""The embedded default model: found when no model or endpoint is given, a plain error when an
install has no weights."""
from __future__ import annotations

import shutil

import pytest

from training import backends, default_model


def test_no_model_and_no_embedded_weights_is_a_plain_error(tmp_path, monkeypatch):
    monkeypatch.setattr(default_model, "DIR", tmp_path / "default_model")
    assert default_model.path() is None
    with pytest.raises(backends.BackendError, match="no embedded default model.*--model CKPT"):
        backends.load_backend(None)


def test_no_model_loads_the_embedded_checkpoint(tiny_ckpt, tmp_path, monkeypatch):
    embedded = tmp_path / "default_model"
    shutil.copytree(tiny_ckpt, embedded)
    monkeypatch.setattr(default_model, "DIR", embedded)
    assert default_model.path() == embedded
    b = backends.load_backend(None, device="cpu")
    assert isinstance(b, backends.TransformersBackend) and b.model_id == str(embedded.resolve())
    # an endpoint still wins over the embedded model
    assert isinstance(backends.load_backend(None, endpoint="http://127.0.0.1:9"), backends.OpenAIBackend)


def test_the_shipped_default_model_verifies_a_kernel_for_the_example_on_cpu():
    """The README's main job: `tritonrl suggest` with no --model uses the shipped weights, and on a
    CPU machine (Triton interpreter) at least one of its candidates for the example module verifies."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    assert default_model.path() is not None, "training/default_model/ has no weights"
    assert sum(f.stat().st_size for f in default_model.DIR.iterdir()) <= 64 << 20  # the repo's budget
    assert (default_model.DIR / "README.md").is_file()  # the model card ships with the weights
    p = subprocess.run([sys.executable, "-m", "training.cli", "suggest", "examples/rms_norm.py::Model", "-n", "4",
                        "--seed", "0", "--device", "cpu", "--json"], cwd=root, capture_output=True, text=True, timeout=900)
    out = json.loads(p.stdout)
    assert out["model"] == str(default_model.DIR.resolve())
    verified = [c for c in out["candidates"] if c["verdict"]["ok"]]
    assert p.returncode == 0 and out["ok"] and verified, (p.stderr[-2000:], [c["label"] for c in out["candidates"]])
    assert "@triton.jit" in out["best"] and verified[0]["verdict"]["device"] == "cpu"
