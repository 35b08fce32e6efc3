"""Sandboxed candidate worker: loads ModelNew, runs it on the reference's inputs, records evidence.

Everything this process reports is evidence, not a verdict: the supervisor outside the sandbox
loads the outputs with `weights_only=True` (plain tensors only) and compares them itself.
Trusted hooks are installed before the candidate is imported: a recorder on Triton's launch path
(which kernels ran, with which grid) and a dispatch mode that logs every ATen op that forward
runs, apart from allocation and views (and, inside a launch, the interpreter's own write-back).
Usage (inside the sandbox): python -m verifier.worker_candidate JOB.json
"""
from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import random
import sys
import time
import types

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from . import _interp_bf16, _interp_libdevice, _interp_races
from .compare import CONTAINERS, _plain_dict
from ._worker_util import (Control, changed_tensors, cut_module_registry, error_info, kept_tensors, library_data,
                           load_module, perturb_counters, perturb_parameters, python_state, python_state_changes,
                           seed_all, serve, snapshot, tensor_versions, to_device, versions_moved, write_json)

_save, _equal, _no_grad, _enable_grad = torch.save, torch.equal, torch.no_grad, torch.enable_grad
_clock = time.perf_counter  # bound before any candidate code is imported
_cuda_sync = torch.cuda.synchronize
_exit = os._exit

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


# Plain data a kernel may be handed besides tensors, Triton's own objects and torch's dtypes and devices.
_DATA_TYPES = (int, float, bool, complex, str, bytes, type(None))
_LIBRARIES = ("triton", "torch", "numpy")


def _library_object(obj, libraries: tuple[str, ...] = ("builtins",) + _LIBRARIES) -> bool:
    """Whether `obj` (a class or a function) really is one that one of these libraries defines: found, by identity, at
    the module and qualified name it claims. A class made with type(...) can claim any __module__ ('triton.language',
    say), and the launch log used to take its word for it."""
    mod = str(getattr(obj, "__module__", None) or "")
    if mod.split(".")[0] not in libraries:
        return False
    found = sys.modules.get(mod)
    for part in str(getattr(obj, "__qualname__", "")).split("."):
        found = getattr(found, part, None)
    return found is obj


def _python_callables(args, kwargs, defaults=()) -> list[str]:
    """Kernel arguments (and the kernel's own parameter defaults, which no launch passes) that are Python code other
    than Triton's own (a @triton.jit function passed as a constexpr is Triton), or objects of the candidate's own types
    (tensor subclasses included): the interpreter would run such a function, or the object's operator methods, on the
    kernel's values as plain Python; a compiled kernel could not run it at all. Types are checked by identity, not by
    the module name they claim."""
    from triton.language import constexpr

    out = []
    todo = [*args, *kwargs.values(), *defaults]
    while todo:
        a = todo.pop()
        t = type(a)
        if t in (list, tuple, set, frozenset):
            todo += list(a)
            continue
        if t is dict:  # D.get("f") / D["f"] in kernel code reaches a value, as OP.step does a slice's
            todo += [*a.keys(), *a.values()]
            continue
        if t is slice:
            todo += [a.start, a.stop, a.step]
            continue
        if t is constexpr:  # tl.constexpr(obj): the kernel reaches obj as OP.value
            todo.append(a.value)
            continue
        if isinstance(a, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)):
            if not _library_object(a, ("triton",)):
                out.append("function " + str(getattr(a, "__name__", t.__name__)))
            continue
        if t not in _DATA_TYPES and not _library_object(t, _LIBRARIES):
            # builtins other than plain data and the containers above (a property's fget, a staticmethod) are not
            # kernel arguments either, nor is an object of the candidate's own type (a float subclass, a class with
            # __mul__, a tensor subclass passed as a constexpr): kernel code such as `OP * x` would run its methods on
            # the interpreter's values
            out.append(f"object of type {t.__name__}")
            continue
        if callable(a) and not issubclass(t, torch.Tensor) and not _library_object(t, ("triton",)):
            out.append(f"callable {t.__name__}")
    return out


class _State:
    active = False      # inside a forward call we are checking
    in_launch = 0       # inside Triton's launch path
    launches: list = []
    ops: set = set()
    autotune: list = []  # [rule, message] of autotuned launches (CPU: _untimed_autotune)


S = _State()


def _install_launch_recorder() -> None:
    if getattr(_install_launch_recorder, "done", False):
        return
    _install_launch_recorder.done = True
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
            defaults = [*(getattr(fn, "__defaults__", None) or ()), *(getattr(fn, "__kwdefaults__", None) or {}).values()]
            for name in _python_callables(args, kwargs, defaults):
                S.ops.add(f"Python {name} passed to kernel {rec['name']}")
            S.in_launch += 1
            try:
                return _orig(self, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                S.in_launch -= 1

        cls.run = run


# Tensor constructors that read Python data. Filling the tensor, torch converts each element that is not a number by
# calling its __float__ / __index__ / __int__ / __complex__ with the Python dispatch key switched off: torch ops run in
# such a method never reach the op log (only `lift_fresh` shows). Found by a red-team pass (2026-12-06): a dict
# subclass whose __float__ computed ReLU into the output passed every check.
# (owner, name, index of the data among the positional arguments, name in the log). torch.Tensor(seq) (or an alias of
# it) goes through the class's own __new__, which nn.Parameter (_make_subclass) and as_subclass never call.
_CONSTRUCTORS = (("torch", "tensor", 0, "torch.tensor"), ("torch", "as_tensor", 0, "torch.as_tensor"),
                 ("torch", "asarray", 0, "torch.asarray"), ("Tensor", "new_tensor", 1, "Tensor.new_tensor"),
                 ("Tensor", "new", 1, "Tensor.new"), ("Tensor", "__new__", 1, "torch.Tensor"))
_PLAIN_NUMBERS = (int, float, bool, complex, type(None))


def _foreign_data(data) -> str | None:
    """The type of the first element of a tensor constructor's data that is neither a plain number, a list, tuple or
    torch.Size of them (sizes, for the legacy constructors), nor a plain tensor (whose values torch copies without
    running Python), or None."""
    todo = [data]
    while todo:
        a = todo.pop()
        t = type(a)
        if t in _PLAIN_NUMBERS or t is torch.Tensor or t is torch.nn.Parameter:
            continue
        if t in (list, tuple, torch.Size):
            todo += a
            continue
        return t.__name__
    return None


def _check_constructor_data() -> None:
    """Wrap the constructors in _CONSTRUCTORS: data holding any other object is logged as compute outside Triton (the
    op log's modes never see what its conversion methods do)."""
    if getattr(_check_constructor_data, "done", False):
        return
    _check_constructor_data.done = True
    for owner_name, name, at, label in _CONSTRUCTORS:
        owner = torch if owner_name == "torch" else torch.Tensor
        orig = getattr(owner, name, None)
        if orig is None:
            continue

        def wrapper(*args, _orig=orig, _at=at, _label=label, **kwargs):
            if S.active and not S.in_launch:  # a launch's own conversions are Triton's
                bad = _foreign_data(args[_at] if len(args) > _at else kwargs.get("data", kwargs.get("obj")))
                if bad is not None:
                    S.ops.add(f"{_label} of a {bad} object (Python code converting it to numbers runs unlogged)")
            return _orig(*args, **kwargs)

        functools.update_wrapper(wrapper, orig)
        setattr(owner, name, wrapper)


def _guard_imports(module: str = "candidate") -> None:
    """Imports made by the candidate's code (its module, and code evaluated in its globals: string annotations that
    typing.get_type_hints runs, say) are limited to the modules the static rules allow: with those rules bypassed, a
    candidate reached ctypes and numpy and computed on a tensor's memory unlogged (a red-team pass, 2026-12-06)."""
    import builtins

    from .static_check import ALLOWED_IMPORTS

    allowed = {m.split(".")[0] for m in ALLOWED_IMPORTS}
    real = builtins.__import__

    def guarded(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name.split(".")[0] not in allowed:
            # whose import: the globals an import statement passes, or (`__import__('x')` called as a function, in
            # code eval'd in the candidate's globals) the calling frame's
            g = globals if isinstance(globals, dict) else sys._getframe(1).f_globals
            if g.get("__name__") == module:
                raise ImportError(f"import of '{name}' is not allowed in a candidate")
        return real(name, globals, locals, fromlist, level)

    builtins.__import__ = guarded


def _log_interpreter_text() -> None:
    """On a CPU: text made of a tile's values under Triton's interpreter is logged. The interpreter gives its tensors
    a __str__/__repr__ that prints their numpy values (patched in at each launch); kernel code that formats a tile
    (FMT % x with a string constexpr, an object's method calling str()) carries the values into plain Python, which a
    compiled kernel could not do. tl.device_print prints through the interpreter's own path and is not logged."""
    from triton.runtime import interpreter

    patch = interpreter._patch_lang_tensor

    def patched(tensor, scope, _patch=patch):
        _patch(tensor, scope)

        def text(fmt):
            def method(self, _fmt=fmt):
                if S.active:
                    S.ops.add(f"Python text of a kernel's values ({_fmt.__name__} of a tile under the interpreter)")
                return _fmt(self.handle.data)
            return method

        scope.set_attr(tensor, "__str__", text(str))
        scope.set_attr(tensor, "__repr__", text(repr))

    interpreter._patch_lang_tensor = patched


def _interpreter_globals_apart() -> None:
    """On a CPU: Triton's interpreter runs a kernel's rewritten source in the kernel's module globals, and first copies
    into them every global of its own module that they lack: numpy as `np`, `inspect`, `time`, `ast`, … A candidate's
    host code could use `np` after its first launch (numpy over a tensor's memory through `__array_interface__`: a
    ReLU computed by numpy with no torch op and no logged read; relu__interpreter_numpy). The rewritten kernel runs in
    a copy of the module's globals with the interpreter's added: the candidate's own globals stay as it wrote them."""
    from triton.runtime import interpreter

    rewriter = getattr(interpreter, "FunctionRewriter", None)
    if rewriter is None or not hasattr(rewriter, "_compile_and_exec"):
        return

    def _compile_and_exec(self, transformed_ast):
        code = compile(transformed_ast, filename=self.filename, mode="exec")
        local_namespace = {**self.kwargs}
        exec(code, {**vars(interpreter), **self.fn.__globals__}, local_namespace)
        return local_namespace[self.fn.__name__]

    rewriter._compile_and_exec = _compile_and_exec


MAX_AUTOTUNE_CONFIGS = 64  # on a CPU every config of an autotuner runs at each new tuning key: more is refused


def _tuning_key(tuner, args: tuple, kwargs: dict) -> tuple:
    """The key Triton's Autotuner.run tunes by (its `key` arguments' values and the tensor arguments' dtypes)."""
    named = {**dict(zip(tuner.arg_names, args)), **kwargs}
    named = {k: v for k, v in named.items() if k in tuner.arg_names}
    key = [named[k] for k in tuner.keys if k in named] + [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
    return tuple(k if type(k) in (int, float, bool, str) else repr(k) for k in key)


def _config_text(c) -> str:
    return ", ".join([*(f"{k}={v}" for k, v in c.kwargs.items()), f"num_warps={c.num_warps}"])


class _ConfigCheck:
    """Every config of an autotuned launch run on the same inputs, as a GPU's autotuner does at each new tuning key:
    the tensor arguments' memory is saved before the launch, each config runs from it (Triton's own kernel_call, with
    the autotuner's hooks) and leaves a copy of the arguments, and the memory is put back before the config whose
    turn it is runs for real. Each config's copy is then compared with that run's (`mismatches`)."""

    def __init__(self, tuner, tensors: dict):
        self.tuner, self.tensors = tuner, tensors
        storages = {}
        for t in tensors.values():
            st = torch.Tensor.untyped_storage(t)
            storages.setdefault(st.data_ptr(), st)
        self.saved = [(st, st.clone()) for st in storages.values()]
        self.runs: list[tuple[object, dict]] = []

    def restore(self) -> None:
        for st, copy in self.saved:
            st.copy_(copy)

    def bench(self, config, kernel_call) -> None:
        """Triton's `do_bench` for one config: a single run, its results kept, the arguments put back."""
        kernel_call()
        S.active, was = False, S.active  # the worker's own copies, not the candidate's torch work
        try:
            self.runs.append((config, {k: torch.Tensor.detach(t).clone() for k, t in self.tensors.items()}))
            self.restore()
        finally:
            S.active = was

    def mismatches(self, chosen, atol, rtol) -> list[str]:
        from .compare import compare

        out = []
        for config, got in self.runs:
            for k, t in self.tensors.items():
                ok, msg, _, _ = compare(torch.Tensor.detach(t), got[k], atol, rtol)
                if not ok:
                    out.append(f"kernel {self.tuner.base_fn.__name__}: autotune config {_config_text(config)} writes "
                               f"a different {k} than config {_config_text(chosen)} on the same inputs ({msg}); a "
                               "GPU's autotuner may pick either")
                    break
        return out


def _untimed_autotune(atol: float | None = None, rtol: float | None = None) -> None:
    """On a CPU, where kernels run in Triton's interpreter: @triton.autotune times no config (the interpreter has no
    driver to time with, and fails "0 active drivers") and each call takes the next config in turn, the first call
    the first. A GPU picks whichever config is fastest there; when only the first was ever run here, a second config
    that did half the work verified, and with 16 configs and 9 calls the last 7 never ran (red-teaming, 2026-12-06).
    So during the trials, at each tuning key the autotuner has not met (each size: base, odd), every config runs on
    the launch's inputs and must write what the config whose turn it is writes (`_ConfigCheck`); findings go to
    `S.autotune`. More than MAX_AUTOTUNE_CONFIGS configs are refused rather than run."""
    from triton.runtime.autotuner import Autotuner

    run, triton_bench = Autotuner.run, Autotuner._bench

    def run_in_turn(self, *args, **kwargs):
        self.cache.clear()  # choose again on every call, never from a cached pick
        self.cache_results = False
        self._tritonrl_calls = getattr(self, "_tritonrl_calls", 0) + 1
        self._tritonrl_benched = 0
        self._tritonrl_check = check = None
        if S.active and len(self.configs) > MAX_AUTOTUNE_CONFIGS:
            S.autotune.append(["autotune-too-many-configs", f"kernel {self.base_fn.__name__} has {len(self.configs)} "
                               f"autotune configs; on a CPU the verifier runs every config and checks at most "
                               f"{MAX_AUTOTUNE_CONFIGS}: offer fewer"])
        elif S.active and len(self.configs) > 1:
            keys = self.__dict__.setdefault("_tritonrl_keys", set())
            key = _tuning_key(self, args, kwargs)
            if key not in keys:
                keys.add(key)
                names = [*self.arg_names, *kwargs]
                values = [*args, *kwargs.values()]
                S.active = False
                try:
                    check = self._tritonrl_check = _ConfigCheck(
                        self, {n: v for n, v in zip(names, values) if isinstance(v, torch.Tensor)})
                finally:
                    S.active = True
        ret = run(self, *args, **kwargs)
        if check is not None and check.runs:
            S.active = False
            try:
                S.autotune += [["autotune-config-mismatch", m] for m in check.mismatches(self.best_config, atol, rtol)]
            finally:
                S.active = True
        self._tritonrl_check = None
        return ret

    def bench(self, *args, config, **meta):
        i, self._tritonrl_benched = self._tritonrl_benched, self._tritonrl_benched + 1
        turn = (self._tritonrl_calls - 1) % max(1, len(self.configs))
        check = getattr(self, "_tritonrl_check", None)
        if check is not None:  # run it through Triton's own _bench, whose timer is this single run
            # `do_bench` is a cached_property: its cache in the instance dict is what _bench reads
            self.__dict__["do_bench"] = lambda kernel_call, quantiles: check.bench(config, kernel_call)
            try:
                triton_bench(self, *args, config=config, **meta)
            finally:  # nothing of the check's copies stays reachable from the kernel (held tensors are state)
                self.__dict__.pop("do_bench", None)
        return [0.0 if i == turn else 1.0] * 3  # the config whose turn it is is "fastest"

    Autotuner.run, Autotuner._bench = run_in_turn, bench


def _cuda_guards_without_a_gpu() -> None:
    """On a CPU: torch.cuda.synchronize() waits for nothing, and `with torch.cuda.device(x.device):` selects nothing.
    GPU code calls both around its launches, and without CUDA they raised ("Torch not compiled with CUDA enabled",
    "Expected a cuda device, but got: cpu"): a candidate right on the user's GPU was rejected on a CPU."""
    class _NoDevice:
        def __init__(self, device=None):
            self.device = device

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    torch.cuda.synchronize = lambda device=None: None
    torch.cuda.device = _NoDevice


class _Dispatch(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if S.active:
            name = func.overloadpacket.__name__
            if name not in ALLOWED_OPS and not (S.in_launch and name in LAUNCH_OPS):
                S.ops.add(f"aten.{name}")
        return func(*args, **(kwargs or {}))


# Tensor methods that hand a tensor's memory to Python (lists, numpy arrays, buffers) without an ATen op:
# compute done on that copy in plain Python never shows in the dispatch log. Triton's interpreter reads
# its arguments' storages itself, inside a launch (LAUNCH_READS). Printing a tensor (repr, str, format, print)
# is a read too: torch's printer switches every mode off while it reads the values, so no ATen op shows, and
# the text carries the values (to 4 digits, enough for the tolerances) into Python. apply_/map_/map2_ (CPU tensors)
# call a Python function on every element, with no ATen op.
HOST_READS = {"tolist", "numpy", "__array__", "__dlpack__", "untyped_storage", "storage", "_typed_storage",
              "__repr__", "__str__", "__format__", "apply_", "map_", "map2_"}
LAUNCH_READS = {"untyped_storage", "storage", "_typed_storage"}


class _HostReads(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if S.active:
            name = getattr(func, "__name__", "")
            if name in HOST_READS and not (S.in_launch and name in LAUNCH_READS):
                S.ops.add(f"Tensor.{name}")
        return func(*args, **(kwargs or {}))


class _OpLog:
    """Logs, while `S.active`, the torch work a forward does outside Triton: ATen ops other than allocation,
    views and copies, and reads of tensor memory into Python."""

    def __enter__(self):
        self._modes = (_HostReads(), _Dispatch())
        for m in self._modes:
            m.__enter__()
        return self

    def __exit__(self, *exc):
        for m in reversed(self._modes):
            m.__exit__(*exc)
        return False


def _logged_forward(model, args, on_device: bool = False):
    """(model(*args), plain copies of its outputs), with the op log active (inside its modes) until the copies are
    taken, so no candidate code runs unlogged between forward's return and the copy (a __del__ on an object that the
    previous output carried ran there, when the worker let go of that output, and computed this one with torch). A
    forward that switched the log off is logged. Callers hold the cyclic garbage collector off (`_gc_paused`)."""
    S.active = True
    try:
        out = model(*args)
        if not S.active:
            S.ops.add("op log switched off during forward")
            S.active = True
        return out, _plain(out, on_device)
    finally:
        S.active = False


@contextlib.contextmanager
def _gc_paused():
    """No cyclic garbage collection inside. A collection runs the __del__ of the candidate objects it frees, at the
    n-th allocation, which a candidate can arrange: between a forward's return and the checks of its output, or
    between a timed call's end event and the check of its output. Collections wait for the worker's safe points."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _finish() -> None:
    """The worker's last act once its evidence is written: exit at once. Returning would tear down main's frame, the
    candidate's module and then the interpreter, running the __del__ of candidate objects after the evidence exists,
    and a __del__ can write files (numpy's ndarray.tofile): it rewrote timing.json with a made-up time."""
    gc.disable()
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            pass
    _exit(0)


def _fresh(x):
    """A copy of one forward argument for the candidate: its tensors cloned, also those inside plain lists and tuples
    (a forward that takes a list of tensors). Only the top-level tensors were cloned and checked, so a candidate that
    changed the tensors of a list argument in place (the caller's tensors, used as scratch) verified (red-teaming
    2026-12-07)."""
    if isinstance(x, torch.Tensor):
        return x.clone()
    if type(x) in (list, tuple):
        return type(x)(_fresh(v) for v in x)
    return x


def _unchanged(given, original) -> bool:
    """Whether forward left argument `given` (from `_fresh(original)`) as it was: its tensors equal, at any depth of
    plain lists and tuples, and those containers as long as they were (read with the containers' own methods: an
    appended item is a change too)."""
    if isinstance(original, torch.Tensor):
        # by exact type: an object the candidate put in the list in place of a tensor is a change, never asked
        return type(given) is type(original) and given.shape == original.shape and _equal(given, original)
    if type(original) in (list, tuple):
        if type(given) is not type(original) or len(given) != len(original):
            return False
        return all(_unchanged(g, o) for g, o in zip(given, original))  # exact list/tuple: no candidate __iter__
    return True


def _tensors_in(x, out: dict) -> dict:
    """The tensors in the worker's own structures (lists, tuples, dicts of them, by exact type), by id."""
    if type(x) in (list, tuple):
        for v in x:
            _tensors_in(v, out)
    elif type(x) is dict:
        for v in x.values():
            _tensors_in(v, out)
    elif type(x) is torch.Tensor:
        out[id(x)] = x
    return out


def _held_tensors(*own) -> dict[int, torch.Tensor]:
    """Every tensor alive in this process that is not among `own` (the worker's own: its inputs, copies of outputs,
    snapshots) nor `_WORKER`'s (alive before the candidate was imported): the tensors the candidate holds, wherever it
    keeps them (a closure, an object, lists nested deeper than kept_tensors looks). The garbage collector tracks every
    tensor object; types are read with type(), never isinstance (which asks an object's own __class__)."""
    n = gc.get_freeze_count()
    if _FROZEN[0] and (n > _FROZEN[0] or _FROZEN[1]):
        gc.unfreeze()  # someone else froze objects (out of gc.get_objects()' sight): all are scanned again from now
        _FROZEN[0] = 0
    elif _FROZEN[0]:
        _FROZEN[0] = n  # frozen objects that died leave the count: it only goes down unless someone freezes more
    skip = _tensors_in(list(own), dict(_WORKER))
    return {id(o): o for o in gc.get_objects() if issubclass(type(o), torch.Tensor) and id(o) not in skip}


_LIBRARY_DATA: list = []  # the libraries' mutable containers (`library_data`): walked for state with the candidate's
_WORKER: dict[int, torch.Tensor] = {}  # the worker's tensors alive before the candidate is imported (kept alive here)
_FROZEN = [0, False]  # [objects the worker froze before importing the candidate (`_freeze_worker`), whether
                      # gc.freeze was called after that]


def _freeze_worker() -> None:
    """Note the worker's tensors in `_WORKER`, then move every object alive (torch's and Triton's hundreds of
    thousands) out of the collector's generations: each later collection and scan of gc.get_objects() sees only what
    came after, the candidate's objects among them (each took 0.1-0.3 s, run twice per input variant: most of a
    correctness phase). Runs at warm-up (the bulk, off the job's clock) and again just before the candidate is
    imported. A candidate that freezes objects itself (to hide a cache from the scan; `gc` is also banned by the
    static check) trips `gc.freeze` or raises the frozen count, and `_held_tensors` then unfreezes them all and scans
    everything."""
    _WORKER.update((id(o), o) for o in gc.get_objects() if issubclass(type(o), torch.Tensor))
    gc.collect()
    _REAL_FREEZE()
    _FROZEN[0] = gc.get_freeze_count()
    gc.freeze = _freeze_tripwire


_REAL_FREEZE = gc.freeze


def _freeze_tripwire() -> None:
    _FROZEN[1] = True
    _REAL_FREEZE()


def _held_changes(before: dict, snap: dict, now: dict) -> list[str]:
    """What forward did to the tensors the candidate holds outside its module: changed one it held before its first
    call, or left behind one it allocated (state kept across calls: a call counter, a cache)."""
    out = []
    for k, t in before.items():
        if k in now and (t.shape != snap[k].shape or not _equal(torch.Tensor.detach(t), snap[k])):
            out.append(f"a {tuple(t.shape)} {str(t.dtype).replace('torch.', '')} tensor it holds outside the module")
    new = [t for k, t in now.items() if k not in before]
    if new:
        out.append(f"{len(new)} tensor(s) it allocated in forward and kept (shapes "
                   + ", ".join(str(tuple(t.shape)) for t in new[:4]) + ")")
    return out


def _plain(out, on_device: bool = False):
    """Copies of forward's outputs as plain tensors, on the CPU (or, `on_device`, where they are); a subclass
    or a non-tensor is reported, not converted. Containers must be plain lists or tuples (by type, not by
    isinstance, which asks the object's own `__class__`): iterating a candidate's container would run its code
    here, after forward, where no op is logged. A plain dict with str or int keys (by exact type) is read with dict's
    own methods; None and Python numbers (exact types: a shape, a flag, a missing output) are inert and kept as they
    are, for the comparison with the reference to judge."""
    if type(out) in CONTAINERS:
        return [_plain(o, on_device) for o in out]
    if _plain_dict(out):
        return {k: _plain(dict.__getitem__(out, k), on_device) for k in list(dict.keys(out))}
    if type(out) in (type(None), bool, int, float):
        return out
    if type(out) is not torch.Tensor:
        raise TypeError(f"forward returned {type(out).__module__}.{type(out).__qualname__}, not a plain tensor "
                        "(or a plain list, tuple or dict of them)")
    t = torch.Tensor.detach(out)
    return t.cpu() if t.is_cuda and not on_device else t.clone()


def _plain_tensor(t) -> torch.Tensor:
    """A plain CPU copy of a tensor the module keeps (a Parameter, a buffer), its subclass's methods switched off."""
    with torch._C.DisableTorchFunctionSubclass():
        x = torch.Tensor.detach(t)
        if type(x) is not torch.Tensor:
            x = torch.Tensor.as_subclass(x, torch.Tensor)
        return x.cpu().clone()


def _same_layout(a: list, b: list) -> bool:
    """Whether input list `a` can be copied into `b` in place (tensors of equal shape and dtype, equal others), into
    nested lists and tuples too: a list argument of tensors compared with `==` raised ("Boolean value of Tensor with
    more than one element is ambiguous") and the timing phase of every candidate of such a problem crashed."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
                and a.dtype == b.dtype)
    if type(a) in (list, tuple) or type(b) in (list, tuple):
        return type(a) is type(b) and len(a) == len(b) and all(_same_layout(x, y) for x, y in zip(a, b))
    return a == b


def _refill_into(a, x) -> None:
    """Copy the values of input `x` into the candidate's argument `a` in place (`_same_layout`), at any depth."""
    if isinstance(a, torch.Tensor):
        a.copy_(x)
    elif type(a) in (list, tuple):
        for u, v in zip(a, x):
            _refill_into(u, v)


class _TimedCalls:
    """Runs and checks the timed calls, so that what is timed is the work that was verified.

    Before each timed call the inputs are refilled in place with the next set's inputs (a result cached from an
    earlier call, by input address or call count, goes stale). The sets are base trials the reference added for
    timing, which the candidate has not seen: the time reported counts only each set's first call, so a cache keyed
    by the inputs' contents (which hit on every timed call when the loop replayed the correctness inputs) has
    nothing to hit where the time is taken. After each call, outside the timed window, its output is compared on
    the device with the first output for the same inputs, and those first outputs go to the supervisor, which
    compares them with the reference: every timed call is checked. At random points between timed calls an
    extra untimed call runs under the op log and the launch recorder, as the correctness trials do; the
    candidate cannot tell those from timed calls, so work it hands to torch or skips only when timed shows up
    there."""

    AUDIT_P, MIN_AUDITS, MAX_AUDITS = 0.1, 2, 10

    def __init__(self, model, trials: list[tuple[int, list]], device: str, oplog, atol, rtol, warm: list | None = None):
        from .compare import compare

        self.model, self.device, self.oplog, self.compare = model, device, oplog, compare
        self.tol = (atol, rtol)
        self.trials = trials                  # (trial index in the base config, inputs on the device)
        # the warm-up calls run on `warm` (inputs of a correctness trial), so the first timed call of each set is
        # the candidate's first sight of it
        self.args = [_fresh(x) for x in (warm or trials[0][1])]
        self.k = -1 if warm is not None else 0  # position in `trials` of the inputs now in self.args (-1: warm)
        self.seen: set[int] = set() if warm is not None else {trials[0][0]}
        self.fresh = False                    # the inputs now in self.args are new to the candidate
        self.first: dict[int, object] = {}    # trial index -> first output for its inputs
        self.mismatch: list[str] = []
        self.audits, self.audit_ops, self.audit_skipped, self.audit_mutated = 0, set(), 0, 0
        self.checked = 0
        self.skipped: list[bool] = []         # per synchronised call: no kernel of the candidate launched
        self.rng = random.SystemRandom()      # not seeded: the candidate cannot predict the audits

    def _refill(self, k: int) -> None:
        self.k = k
        trial = self.trials[k][0]
        self.fresh = trial not in self.seen
        self.seen.add(trial)
        for a, x in zip(self.args, self.trials[k][1]):
            _refill_into(a, x)  # tensors inside a list argument too (they kept the warm-up's values)

    def counted(self) -> bool:
        """Whether the coming timed call's time counts: its inputs are new to the candidate."""
        return self.fresh

    def _check(self, where: str, out) -> None:
        trial = self.trials[self.k][0]
        self.checked += 1  # a first output is checked too: by the supervisor, against the reference
        try:
            if trial not in self.first:
                self.first[trial] = _plain(out, on_device=True)
                return
            ok, msg, _, _ = self.compare(self.first[trial], out, *self.tol)
        except BaseException as e:
            ok, msg = False, f"{type(e).__name__}: {e}"
        if not ok and len(self.mismatch) < 5:
            self.mismatch.append(f"{where} (inputs of trial {trial + 1}): {msg}"[:500])

    def _launched(self, n0: int) -> bool:
        return any(r["module"] == "candidate" and r["grid"] and all(g > 0 for g in r["grid"])
                   for r in S.launches[n0:])

    def audit(self) -> None:
        """One untimed call under the op log and the launch recorder, on the current trial's inputs."""
        self._refill(self.k)
        n0, S.ops = len(S.launches), set()
        with _no_grad(), self.oplog:
            out, plain = _logged_forward(self.model, self.args, on_device=True)
        if self.device == "cuda":
            torch.cuda.synchronize()
        self.audits += 1
        self.audit_ops |= S.ops
        self.audit_skipped += not self._launched(n0)
        self.audit_mutated += not all(_unchanged(a, to_device(x, self.device))
                                      for a, x in zip(self.args, self.trials[self.k][1]))
        self._check(f"audit call {self.audits}", plain)

    def before(self, i: int) -> None:
        if self.k >= 0 and self.audits < self.MAX_AUDITS and self.rng.random() < self.AUDIT_P:
            self.audit()
        self._refill((self.k + 1) % len(self.trials))

    def call(self):
        # timed calls run outside the op log's torch modes: their pass-through would cost microseconds per torch call
        # inside every candidate's timed window. A candidate that asks torch whether a mode is on (a private torch._C
        # call: the static rules refuse it) could therefore compute with torch in timed calls only; with the static
        # rules off that verified with torch's time (red-teaming 2026-12-07, cheats/relu__mode_probe_torch_when_timed.py)
        return self.model(*self.args)

    def recorded_call(self):
        n0 = len(S.launches)
        S.active = True
        try:
            return self.model(*self.args)
        finally:
            S.active = False
            self.skipped.append(not self._launched(n0))

    def after(self, phase: str):
        return lambda i, n, out: self._check(f"{phase}-timed call {i + 1} of {n}", out)


def _time(base: tuple, device: str, job: dict) -> None:
    """The timing phase: writes timed.pt (first output per trial's inputs), then timing.json."""
    from .timing import event_ms, wall_ms

    model, cpu_inputs, timed_from = base
    warm = to_device(cpu_inputs[0], device)
    # the reference's timing sets, unseen by the candidate (those that can be copied into the warm-up's buffers)
    # kept in host memory until each is copied into the call's buffers: on the GPU, a kernel's pointer arithmetic
    # reaches any device memory of its process, and sets waiting there could be read (and answered) ahead of time
    sets = [(t, x) for t in range(timed_from or len(cpu_inputs), len(cpu_inputs))
            if _same_layout(x := cpu_inputs[t], warm)]
    if not sets:  # none (an older reference): the correctness trials' inputs, as before
        sets, warm = [(t, to_device(x, device)) for t, x in enumerate(cpu_inputs)], None
        sets = [(t, x) for t, x in sets if _same_layout(x, sets[0][1])]
    tc = _TimedCalls(model, sets, device, _OpLog(), job.get("atol"), job.get("rtol"), warm=warm)
    gc.disable()  # for good (the worker exits after this phase): no collection inside a timed call or its check
    # at least two passes over the sets (each set's first call counts, the second checks its output is stable)
    reps = max(2 * len(sets), int(job.get("reps") or 200))
    with _no_grad():
        timing = {"time_ms": event_ms(tc.call, device=device, before=tc.before, after=tc.after("event"),
                                      counted=tc.counted if warm is not None else None, max_reps=reps),
                  "wall_ms": wall_ms(tc.recorded_call, device=device, before=tc.before, after=tc.after("sync"))}
        while tc.audits < tc.MIN_AUDITS:
            tc.audit()
    background = _background_work(device)  # threads or processes it started in the timed calls
    _save([{"trial": t, "output": _plain(o)} for t, o in sorted(tc.first.items())], "timed.pt")
    # the synchronised re-timing also checks that every timed call launches a kernel of the candidate
    # (a cache that skips work on repeated inputs would time nothing)
    timing.update(calls_without_launch=sum(tc.skipped), checked_calls=tc.checked, mismatch=tc.mismatch,
                  audits=tc.audits, audit_ops=sorted(tc.audit_ops), audit_skipped=tc.audit_skipped,
                  audit_mutated=tc.audit_mutated, background=background)
    write_json("timing.json", timing)
    _finish()  # here, not after returning: returning lets go of `tc`, whose inputs the candidate may have hung a
               # __del__ on, and it would run after the evidence is written


_BEFORE_CANDIDATE: dict = {"threads": set(), "processes": set()}  # taken just before the candidate is imported


def _other_processes() -> set[int]:
    """Processes of this sandbox other than this worker and its ancestors: every process in /proc when the sandbox has
    its own PID namespace (bubblewrap's --unshare-all: pid 1 is bubblewrap), else this worker's descendants and the
    processes of its session (a child that called setsid and was reparented escapes that fallback)."""
    me = os.getpid()
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                table[int(entry)] = (int(fields[1]), int(fields[3]))  # (ppid, session)
            except (OSError, IndexError, ValueError):
                pass
    ancestors, p = set(), me
    while p in table and p not in ancestors:
        ancestors.add(p)
        p = table[p][0]
    try:
        own_namespace = "bwrap" in open("/proc/1/cmdline", "rb").read().decode(errors="replace")
    except OSError:
        own_namespace = False
    if own_namespace:
        return set(table) - ancestors - {1}
    session = table.get(me, (0, -1))[1]
    out, todo = set(), [me]
    while todo:
        parent = todo.pop()
        for pid, (pp, _) in table.items():
            if pp == parent and pid not in out:
                out.add(pid)
                todo.append(pid)
    return (out | {pid for pid, (_, sid) in table.items() if sid == session}) - ancestors


def _background_work(device: str) -> list[str]:
    """What the candidate left running once its calls are over: the device synchronised first (a kernel launched after
    the last trial's synchronize, from a __del__ or the state checks' collection, ran on while the reference's baseline
    was timed beside it, and a slow baseline is a large speedup), then Python threads and processes that were not
    there before it was imported (with the static rules off, torch.cuda.threading and torch.cuda.os.fork reach both:
    a thread or a child loads the machine while the baseline is timed, or works beside the timed calls).
    Red-teaming 2026-12-07: timing_cheats/relu__child_process_loads_baseline.py."""
    if device == "cuda":
        for i in range(torch.cuda.device_count()):
            _cuda_sync(i)
    out = []
    threads = set(sys._current_frames()) - _BEFORE_CANDIDATE["threads"]
    if threads:
        out.append(f"{len(threads)} Python thread(s) started by the candidate still running")
    procs = _other_processes() - _BEFORE_CANDIDATE["processes"]
    if procs:
        out.append(f"{len(procs)} process(es) started by the candidate still running")
    return out


def _warm(device: str) -> None:
    """Trusted, before any job: the warm-up kernel, run through the launch recorder and the op log (inactive).
    The first entry into the op log's torch modes imports torch's Python dispatch machinery, which every
    candidate's first trial paid before: 1.2-1.3 s on this repo's idle CPU machine
    (benchmarks/results/warm_compile_cpu.md), first trials of 3.7-6.1 s on the H200 (results/h200_20261205)."""
    from . import _warm_kernel

    _install_launch_recorder()
    try:
        with _no_grad(), _OpLog():
            _warm_kernel.run(device)
    except Exception as e:  # only a head start: the job itself will meet (and report) whatever this is
        print(f"op-log warm-up failed: {type(e).__name__}: {e}", file=sys.stderr)
    _freeze_worker()


def main(job_path: str) -> int:
    job = json.load(open(job_path))
    device = job["device"]
    control = Control()
    torch.serialization.add_safe_globals([types.SimpleNamespace])  # config objects of get_init_inputs
    configs = torch.load(os.path.join(os.environ["TRITONRL_INBOX"], "for_candidate.pt"), weights_only=True,
                         mmap=True)
    result = {"trials": [], "error": None, "state_changed": [], "state_values": {}}
    _install_launch_recorder()
    _check_constructor_data()
    if job.get("guard_imports", True):
        _guard_imports()
    if device == "cpu":
        _untimed_autotune(job.get("atol"), job.get("rtol"))
        _interpreter_globals_apart()
        _log_interpreter_text()
        _interp_bf16.install()  # bf16 arithmetic in float32, rounded (the interpreter computed on the bit patterns)
        _interp_bf16.install_saturating_casts()  # float to int clamps, as on a GPU (numpy wraps)
        _interp_libdevice.install()  # libdevice.erf / tanh / … in numpy (the interpreter's are stubs)
        _interp_races.install()  # right only because the interpreter runs its programs in order, or a block at once
        _cuda_guards_without_a_gpu()
    oplog = _OpLog()
    cut_module_registry()  # no sys.modules under a library's name (triton.language.extra.modules)
    _LIBRARY_DATA[:] = library_data()  # before the candidate is imported: the libraries' own containers
    t0 = _clock()
    _freeze_worker()
    _BEFORE_CANDIDATE.update(threads=set(sys._current_frames()), processes=_other_processes())
    try:
        cand = load_module("candidate.py", "candidate")
        ModelNew = cand.ModelNew
    except BaseException as e:
        result["error"] = error_info("import", e)
        gc.disable()
        _save(result, "correct.pt")
        _finish()
    result["import_s"] = _clock() - t0  # self-reported by the sandbox: diagnostics only, never judged
    base = None
    clock = result["clock"] = {"setup": 0.0, "trials": 0.0, "state_checks": 0.0}  # diagnostics only, never judged
    for cfg in configs:
        t_cfg = _clock()
        try:
            seed_all(cfg["seed"])
            model = ModelNew(*cfg["init"], **cfg.get("init_kwargs", {})).to(device)
            if cfg.get("perturb"):
                perturb_parameters(model, cfg["seed"])
                perturb_counters(model, cfg.get("counters", []), cfg["seed"])
            live = kept_tensors(model, vars(cand))
            kept = snapshot(live)
            # every other tensor the candidate holds (a closure, an object, a list three deep): compared after the
            # trials, with those its forward left alive (a call counter in device memory kept right for the
            # verifier's calls and wrong after the thousandth)
            gc.collect()
            held = _held_tensors(live, kept, result["trials"])
            held_snap = {k: torch.Tensor.detach(t).clone() for k, t in held.items()}
            # and the Python state it can reach (an attribute set through an alias of self, a module-level list a
            # helper appends to, a module-level iterator forward calls next() on: a call counter in plain Python)
            py_state = python_state([model, vars(cand), _LIBRARY_DATA])
            # and their version counters: a tensor forward writes in place with the same values (zero_() on zeros)
            # compares equal, and its `_version` counted the calls
            versions = tensor_versions({**live, **{f"a {tuple(t.shape)} tensor it holds outside the module": t
                                                   for t in held.values()}})
        except BaseException as e:
            result["error"] = error_info("init", e)
            break
        clock["setup"] += _clock() - t_cfg
        # base trials from `timed_from` on are the timing phase's: the candidate first sees them when timed
        for t, inputs in enumerate(cfg["inputs"][:cfg.get("timed_from", len(cfg["inputs"]))]):
            with _gc_paused():
                originals = to_device(inputs, device)
                args = [_fresh(x) for x in originals]
                S.launches, S.ops, S.autotune = [], set(), []
                _interp_races.findings.clear()
                _interp_races.intra_findings.clear()
                rec = {"label": cfg["label"], "trial": t}
                t1 = _clock()
                grad_ctx = _no_grad() if t % 2 == 0 else _enable_grad()  # behaviour must not depend on grad mode
                out = None
                try:
                    with grad_ctx, oplog:
                        out, rec["output"] = _logged_forward(model, args)
                    if device == "cuda":
                        torch.cuda.synchronize()
                except BaseException as e:
                    rec["error"] = error_info("forward", e)
                rec["s"] = _clock() - t1
                clock["trials"] += rec["s"]
                rec["launches"] = list(S.launches)
                rec["ops"] = sorted(S.ops)
                rec["races"] = _interp_races.findings[:3]
                rec["intra_races"] = _interp_races.intra_findings[:3]
                rec["autotune"] = S.autotune[:3]
                rec["mutated"] = [i for i, (a, o) in enumerate(zip(args, originals)) if not _unchanged(a, o)]
                result["trials"].append(rec)
                # this trial's objects are let go here, once its evidence is taken: a __del__ they set off (or a
                # collection after this block) comes too late to touch it
                out = args = originals = None
        t_checks = _clock()
        try:
            kept_now = kept_tensors(model, vars(cand))
            changed = changed_tensors(kept, kept_now)
            result["state_changed"] += [f"{cfg['label']}: {n}" for n in changed]
            # their values, for a reference that keeps state too (running statistics): the supervisor compares
            result["state_values"][cfg["label"]] = {n: _plain_tensor(kept_now[n]) for n in changed if n in kept_now}
            gc.collect()  # cyclic garbage of the trials is not state
            # (the copies of the changed state just taken for the supervisor are the worker's, not held by the candidate)
            now = _held_tensors(kept_now, kept, held_snap, result["trials"], result["state_values"])
            result["state_changed"] += [f"{cfg['label']}: {n}" for n in _held_changes(held, held_snap, now)]
            result["state_changed"] += [f"{cfg['label']}: {n}" for n in python_state_changes(
                py_state, python_state([model, vars(cand), _LIBRARY_DATA]))]
            result["state_changed"] += [f"{cfg['label']}: {n}" for n in versions_moved(versions)]
            held = held_snap = now = kept_now = py_state = versions = None
        except BaseException as e:
            result["state_changed"].append(f"{cfg['label']}: unreadable ({type(e).__name__})")
        clock["state_checks"] += _clock() - t_checks
        if cfg["label"] == "base" and base is None:
            base = (model, cfg["inputs"], cfg.get("timed_from"))
    gc.disable()  # for good: no candidate __del__ from here on, between the evidence written and the exit
    if result["error"] is None:  # before R: the baseline may be timed while this worker waits
        result["background"] = _background_work(device)
    _save(result, "correct.pt")
    if job.get("time") and base is not None and result["error"] is None:
        if control.wait_for_gpu():
            _time(base, device, job)
    _finish()


if __name__ == "__main__":
    sys.exit(serve(main, sys.argv, warm=_warm))
