"""The embedded default model: the checkpoint shipped inside the package (`training/default_model/`,
safetensors + tokenizer + model card), used by `tritonrl suggest` and `tritonrl-lsp` when neither a
model nor an endpoint is given."""
from __future__ import annotations

from pathlib import Path

DIR = Path(__file__).resolve().parent / "default_model"
NAME = "tritonrl-medium-2 (embedded default)"


def path() -> Path | None:
    """The embedded checkpoint's folder, or None when this install has no weights in it."""
    if (DIR / "config.json").is_file() and any(DIR.glob("*.safetensors")):
        return DIR
    return None
