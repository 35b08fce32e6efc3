"""The one LoRA configuration both trainers use (`training.sft --lora`, `training.rl --lora`).

A config's `lora_r` (default 16) is the rank and `lora_alpha` (default twice the rank) the scale; every linear
layer gets an adapter (the small model has no layer that is not worth adapting)."""
from __future__ import annotations

from typing import Any


def lora_config(cfg: dict) -> Any:
    """peft's LoraConfig for a causal LM from a training config's `lora_r` / `lora_alpha`."""
    from peft import LoraConfig

    r = int(cfg.get("lora_r", 16))
    return LoraConfig(r=r, lora_alpha=cfg.get("lora_alpha", 2 * r), target_modules="all-linear", task_type="CAUSAL_LM")
