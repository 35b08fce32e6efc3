"""Sandboxed candidate worker: loads ModelNew, runs it on the reference's inputs, records evidence.

Everything this process reports is evidence, not a verdict: the supervisor outside the sandbox
loads the outputs with `weights_only=True` (plain tensors only) and compares them itself.
Trusted hooks are installed before the candidate is imported: a recorder on Triton's launch path
(which kernels ran, with which grid) and a dispatch mode that logs every ATen op that forward
runs, apart from allocation and views (and, inside a launch, the interpreter's own write-back).
Usage (inside the sandbox): python -m verifier.worker_candidate JOB.json
"""
from __future__ import annotations

import json
import os
import sys
import time
import types

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from ._worker_util import Control, serve, error_info, load_module, perturb_parameters, seed_all, to_device, write_json

_save, _equal, _no_grad, _enable_grad = torch.save, torch.equal, torch.no_grad, torch.enable_grad
_clock = time.perf_counter  # bound before any candidate code is imported

# ATen ops a forward may run itself: allocation, views, layout copies, fills of scratch buffers.
ALLOWED_OPS = {
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
    "new_empty", "new_empty_strided", "new_zeros", "new_ones", "new_full", "view", "_unsafe_view", "reshape",
    "_reshape_alias", "as_strided", "t", "transpose", "permute", "expand", "squeeze", "unsqueeze", "slice",
    "select", "narrow", "split", "split_with_sizes", "chunk", "unbind", "unflatten", "flatten", "alias",
    "detach", "lift_fresh", "clone", "copy_", "_to_copy", "to", "contiguous", "zero_", "fill_", "view_as",
    "expand_as", "movedim", "unfold", "is_same_size", "resize_", "_has_compatible_shallow_copy_type",
}


# ATen ops Triton's interpreter runs itself inside a launch (it writes results back into the arguments'
# storage). Every other op is logged inside a launch too: the launch path runs candidate code (a grid
# callable, an argument's data_ptr()), and compute hidden there is still torch, not Triton.
LAUNCH_OPS = {"set_"}


class _State:
    active = False      # inside a forward call we are checking
    in_launch = 0       # inside Triton's launch path
    launches: list = []
    ops: set = set()


S = _State()


def _install_launch_recorder() -> None:
    import triton.runtime.jit as jit

    classes = [jit.JITFunction]
    try:
        from triton.runtime.interpreter import InterpretedFunction

        classes.append(InterpretedFunction)
    except ImportError:
        pass
    for cls in classes:
        orig = cls.run

        def run(self, *args, grid, warmup, _orig=orig, **kwargs):
            if warmup or not S.active:
                return _orig(self, *args, grid=grid, warmup=warmup, **kwargs)
            fn = getattr(self, "fn", None)
            rec = {"name": getattr(fn, "__name__", "?"), "module": getattr(fn, "__module__", "?"), "grid": None}
            if callable(grid):
                user_grid = grid

                def grid(meta, _g=user_grid, _r=rec):
                    g = _g(meta)
                    _r["grid"] = [int(v) for v in g]
                    return g
            else:
                rec["grid"] = [int(v) for v in grid]
            S.launches.append(rec)
            S.in_launch += 1
            try:
                return _orig(self, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                S.in_launch -= 1

        cls.run = run


def _untimed_autotune() -> None:
    """On a CPU, where kernels run in Triton's interpreter: @triton.autotune picks its first config without
    timing any (the interpreter has no driver to time with, and fails "0 active drivers"); the config
    used is the one whose output is checked."""
    from triton.runtime.autotuner import Autotuner

    Autotuner._bench = lambda self, *args, config, **meta: [0.0, 0.0, 0.0]


class _OpLog(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if S.active:
            name = func.overloadpacket.__name__
            if name not in ALLOWED_OPS and not (S.in_launch and name in LAUNCH_OPS):
                S.ops.add(name)
        return func(*args, **(kwargs or {}))


def _plain(out):
    """Outputs as plain CPU tensors; a subclass or a non-tensor is reported, not converted."""
    if isinstance(out, (list, tuple)):
        return [_plain(o) for o in out]
    if type(out) is not torch.Tensor:
        raise TypeError(f"forward returned {type(out).__module__}.{type(out).__qualname__}, not a plain tensor")
    t = torch.Tensor.detach(out)
    return t.cpu() if t.is_cuda else t.clone()


def main(job_path: str) -> int:
    job = json.load(open(job_path))
    device = job["device"]
    control = Control()
    torch.serialization.add_safe_globals([types.SimpleNamespace])  # config objects of get_init_inputs
    configs = torch.load(os.path.join(os.environ["TRITONRL_INBOX"], "for_candidate.pt"), weights_only=True,
                         mmap=True)
    result = {"trials": [], "error": None}
    _install_launch_recorder()
    if device == "cpu":
        _untimed_autotune()
    oplog = _OpLog()
    t0 = _clock()
    try:
        cand = load_module("candidate.py", "candidate")
        ModelNew = cand.ModelNew
    except BaseException as e:
        result["error"] = error_info("import", e)
        _save(result, "correct.pt")
        return 0
    result["import_s"] = _clock() - t0  # self-reported by the sandbox: diagnostics only, never judged
    base = None
    for cfg in configs:
        try:
            seed_all(cfg["seed"])
            model = ModelNew(*cfg["init"]).to(device)
            if cfg.get("perturb"):
                perturb_parameters(model, cfg["seed"])
        except BaseException as e:
            result["error"] = error_info("init", e)
            break
        for t, inputs in enumerate(cfg["inputs"]):
            originals = to_device(inputs, device)
            args = [x.clone() if isinstance(x, torch.Tensor) else x for x in originals]
            S.launches, S.ops = [], set()
            rec = {"label": cfg["label"], "trial": t}
            t1 = _clock()
            grad_ctx = _no_grad() if t % 2 == 0 else _enable_grad()  # behaviour must not depend on grad mode
            try:
                with grad_ctx, oplog:
                    S.active = True
                    try:
                        out = model(*args)
                    finally:
                        S.active = False
                if device == "cuda":
                    torch.cuda.synchronize()
                rec["output"] = _plain(out)
            except BaseException as e:
                rec["error"] = error_info("forward", e)
            rec["s"] = _clock() - t1
            rec["launches"] = list(S.launches)
            rec["ops"] = sorted(S.ops)
            rec["mutated"] = [i for i, (a, o) in enumerate(zip(args, originals))
                              if isinstance(o, torch.Tensor) and not (a.shape == o.shape and _equal(a, o))]
            result["trials"].append(rec)
            if cfg["label"] == "base" and base is None:
                base = (model, originals)
    _save(result, "correct.pt")
    if device == "cuda" and job.get("time") and base is not None and result["error"] is None:
        if control.wait_for_gpu():
            from .timing import event_ms, wall_ms

            model, inputs = base
            args = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
            skipped = []

            def recorded_call():
                # the synchronised re-timing also checks that every timed call launches a kernel of
                # the candidate (a cache that skips work on repeated inputs would time nothing)
                n0 = len(S.launches)
                S.active = True
                try:
                    model(*args)
                finally:
                    S.active = False
                skipped.append(not any(r["module"] == "candidate" for r in S.launches[n0:]))

            with _no_grad():
                timing = {"time_ms": event_ms(lambda: model(*args)), "wall_ms": wall_ms(recorded_call)}
            timing["calls_without_launch"] = sum(skipped)
            write_json("timing.json", timing)
    return 0


if __name__ == "__main__":
    sys.exit(serve(main, sys.argv))
