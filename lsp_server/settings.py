"""The language server's settings: command line < initializationOptions < workspace/configuration.

Clients send them flat or under a ``tritonrl`` key, in snake_case or camelCase (``servedModel``,
``feedbackDb``, ``verifyTimeoutS`` …). A bad value is reported by name and the old value stays.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any

SECTION = "tritonrl"
BACKENDS = ("auto", "transformers", "vllm")
DEVICES = ("auto", "cpu", "cuda")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@dataclass
class Settings:
    model: str | None = None          # a checkpoint folder or a training run directory (watched for new checkpoints)
    endpoint: str | None = None       # an OpenAI-compatible server instead of an in-process model
    served_model: str | None = None
    backend: str = "auto"
    device: str = "auto"              # where the model runs and kernels are verified
    n: int = 4                        # candidates per turn
    trials: int | None = None         # verifier trials (None: the verifier's default)
    turns: int = 2
    verify_timeout_s: float | None = None  # per sandboxed verification phase (None: the verifier's default)
    model_timeout_s: float = 600.0    # one request to an endpoint
    max_new_tokens: int = 2048        # per candidate
    feedback_db: str | None = None    # None: training.feedback.default_path() (per user)
    lazy_baseline: bool | None = None  # GPU: time the reference only once a candidate passes correctness
                                      # (None: the verifier's default, VerifyConfig.lazy_baseline)
    warm_start: bool = True           # load the model (and, on a GPU, start the verifier's sandboxes) when the
                                      # server starts and when the model setting changes, not at the first request

    #: changing one of these means a different model: the loaded one is dropped
    MODEL_KEYS = ("model", "endpoint", "served_model", "backend", "device")

    @classmethod
    def keys(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    def _coerce(self, key: str, v: Any) -> Any:
        if key in ("model", "endpoint", "served_model", "feedback_db"):
            if not isinstance(v, str):
                raise ValueError("must be a string")
            return v or None                     # "" (an editor's empty default) means unset
        if key == "backend" and v not in BACKENDS:
            raise ValueError(f"must be one of {', '.join(BACKENDS)}")
        if key == "device" and v not in DEVICES:
            raise ValueError(f"must be one of {', '.join(DEVICES)}")
        if key in ("n", "trials", "turns", "max_new_tokens"):
            # float(10**400) raises OverflowError and float("inf") is no whole number: both are bad values, not
            # an exception that loses every other setting of the message
            if isinstance(v, bool) or not math.isfinite(float(v)) or int(v) != float(v) or int(v) < 1:
                raise ValueError("must be a whole number >= 1")
            return int(v)
        if key in ("lazy_baseline", "warm_start") and not isinstance(v, bool):
            raise ValueError("must be true or false")
        if key in ("verify_timeout_s", "model_timeout_s"):
            # not inf/nan: a non-finite float is written as `Infinity` in the status answer, which is not JSON
            if isinstance(v, bool) or not (math.isfinite(float(v)) and float(v) > 0):
                raise ValueError("must be a number of seconds > 0")
            return float(v)
        return v

    def update(self, opts: Any) -> tuple[set[str], list[str]]:
        """Merge a settings object; returns (keys whose value changed, one message per bad value).
        Unknown keys and null values are ignored."""
        if not isinstance(opts, dict):
            return set(), []
        if isinstance(opts.get(SECTION), dict):
            opts = {**opts, **opts[SECTION]}
        flat = {_snake(k): v for k, v in opts.items() if isinstance(k, str)}
        changed, errors = set(), []
        for k in self.keys():
            v = flat.get(k, opts.get(_camel(k)))
            if v is None:
                continue
            try:
                v = self._coerce(k, v)
            except (TypeError, ValueError, OverflowError) as e:
                shown = repr(v) if len(repr(v)) <= 80 else repr(v)[:77] + "..."  # a 400-digit number, a huge object
                errors.append(f"{_camel(k)} = {shown}: {e}")
                continue
            if getattr(self, k) != v:
                setattr(self, k, v)
                changed.add(k)
        return changed, errors

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)
