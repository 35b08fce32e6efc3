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
