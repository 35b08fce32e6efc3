"""Helpers shared by the sandboxed workers (trusted code, runs inside the sandbox)."""
from __future__ import annotations

import importlib.util
import json
import os
import random
import sys
import traceback
from types import ModuleType


def load_module(path: str, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def seed_all(seed: int) -> None:
    import torch

    random.seed(seed)
    torch.manual_seed(seed)  # seeds CUDA generators too


def error_info(phase: str, exc: BaseException) -> dict:
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return {"phase": phase, "type": type(exc).__name__, "message": str(exc)[:2000], "traceback": "".join(tb)[-6000:]}


def write_json(path: str, obj) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, path)


def to_device(x, device):
    import torch

    if isinstance(x, torch.Tensor):
        return x.to(device)
    if isinstance(x, (list, tuple)):
        return type(x)(to_device(v, device) for v in x)
    return x


def shapes_of(xs) -> list:
    import torch

    return [list(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__ for x in xs]


class Control:
    """The handshake with the supervisor over two inherited pipe fds (spec in TRITONRL_CONTROL).

    worker -> supervisor: W (warm: imports done, waiting for a job), O (the reference's outputs are
    written: candidates can start), R (correctness done, ready to time)
    supervisor -> worker: J (job.json is in place), G (the GPU is yours: time now), S (stop)
    """

    def __init__(self, spec: str | None = None):
        spec = spec if spec is not None else os.environ.get("TRITONRL_CONTROL")
        self.ready_fd, self.go_fd = (int(v) for v in spec.split(",")) if spec else (None, None)

    def _ask(self, msg: bytes, yes: bytes) -> bool:
        if self.ready_fd is None:
            return True
        os.write(self.ready_fd, msg)
        return os.read(self.go_fd, 1) == yes

    def outputs_ready(self) -> None:
        if self.ready_fd is not None:
            os.write(self.ready_fd, b"O")

    def wait_for_job(self) -> bool:
        return self._ask(b"W", b"J")

    def wait_for_gpu(self) -> bool:
        return self._ask(b"R", b"G")


def warm_up(device: str) -> None:
    """Trusted start-up work done before any job: imports, CUDA context, Triton's driver stubs.

    This is what a pooled worker has already done when a candidate arrives."""
    import torch
    import triton  # noqa: F401
    import triton.language  # noqa: F401

    if device == "cuda":
        torch.empty(1, device="cuda")
        from triton.runtime import driver

        driver.active.get_current_device()
        getattr(driver.active, "utils", None)  # compiles the driver's C helpers into this sandbox's cache


def serve(main, argv: list[str]) -> int:
    """Entry of a worker: warm up, tell the supervisor, wait for the job, run it."""
    device = os.environ.get("TRITONRL_DEVICE", "cpu")
    warm_up(device)
    if not Control().wait_for_job():
        return 0
    return main(argv[1] if len(argv) > 1 else "job.json")


def perturb_parameters(model, seed: int) -> None:
    """Nudge every parameter, in registration order, by seeded noise (same on both sides).

    Default inits such as LayerNorm's weight=1, bias=0 would let a kernel that ignores its
    parameters pass; perturbed configs use these values instead. Parameters must therefore be
    created in the same order as the reference's (a documented requirement)."""
    import torch

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            if p.is_floating_point():
                noise = torch.randn(p.shape, generator=g, dtype=torch.float32) * 0.5
                p.add_(noise.to(device=p.device, dtype=p.dtype))
