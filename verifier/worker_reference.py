"""Sandboxed reference worker: plans shapes, runs the problem's Model, writes inputs and outputs.

Runs in its own sandbox, never beside a candidate: the candidate sees only the inputs this
worker writes, never the problem source, the outputs or this process.
Usage (inside the sandbox): python -m verifier.worker_reference JOB.json
"""
from __future__ import annotations

import copy
import functools
import json
import os
import random
import sys
import time
import types

from . import problem as P
from ._worker_util import (Control, changed_tensors, error_info, kept_tensors, perturb_counters, perturb_parameters,
                           python_state, python_state_changes, seed_all, serve, shapes_of, snapshot, tensor_versions,
                           to_device, versions_moved, write_json)


def _exec(src: str, name: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__file__ = f"{name}.py"
    sys.modules[name] = mod
    exec(compile(src, f"{name}.py", "exec"), mod.__dict__)
    return mod


def init_args(mod) -> tuple[list, dict]:
    """Model's arguments from get_init_inputs(): a list (or tuple) of positional ones, or a dict of keyword ones
    (Model(**kwargs)); anything else is named in the problem's error (a tensor or None would have been iterated)."""
    v = mod.get_init_inputs()
    if isinstance(v, (list, tuple)):
        return list(v), {}
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return [], dict(v)
    raise TypeError(f"get_init_inputs() must return a list of Model's arguments (or a dict of keyword arguments); it "
                    f"returned {type(v).__name__}" + (" (write `return []` for none)" if v is None else ""))


def input_list(mod) -> list:
    """forward's arguments from get_inputs(): a list (or tuple). A tensor is not iterated into its rows: a clear error
    instead (a problem that returned torch.randn(n, m) ran forward with n arguments)."""
    import torch

    v = mod.get_inputs()
    if isinstance(v, (list, tuple)):
        return list(v)
    raise TypeError(f"get_inputs() must return a list of forward's arguments; it returned {type(v).__name__}"
                    + (" (write `return [x]` for one tensor)" if isinstance(v, torch.Tensor) else ""))


def _numels(src: str) -> list[int]:
    """Element counts of the inputs at these constants, without allocating (meta device)."""
    import torch

    mod = _exec(src, "_probe")
    with torch.device("meta"):
        xs = input_list(mod)
    return [x.numel() for x in xs if isinstance(x, torch.Tensor)]


@functools.lru_cache(maxsize=8)  # the size plan asks again for the plan it accepted on the step before
def _param_numel(src: str) -> int:
    """Elements of the parameters and buffers Model holds at these constants (meta device: nothing allocated;
    0 when the model cannot be built there)."""
    import torch

    try:
        mod = _exec(src, "_probe_params")
        with torch.device("meta"):
            args, kwargs = init_args(mod)
            model = mod.Model(*args, **kwargs)
        return sum(t.numel() for t in [*model.parameters(), *model.buffers()])
    except Exception:
        return 0


def _largest(values: dict) -> int:
    return max(max(v) if isinstance(v, tuple) else v for v in values.values())


def _replace(values: dict, old: int, new: int) -> dict:
    """Every occurrence of size `old` becomes `new`: equal sizes usually must stay equal
    (e.g. a batch that broadcasts against a feature dimension of the same length)."""
    sub = lambda v: new if v == old else v  # noqa: E731
    return {k: type(v)(sub(e) for e in v) if isinstance(v, tuple) else sub(v) for k, v in values.items()}


def _fits(src: str, values: dict, per_tensor: int, total: int) -> tuple[bool, int]:
    """(whether the inputs at these sizes fit the budget, the model's parameter count when they do, else 0)."""
    n = _numels(P.with_constants(src, values))
    inputs_fit = not n or (max(n) <= per_tensor and sum(n) <= total)
    return inputs_fit, _param_numel(P.with_constants(src, values)) if inputs_fit else 0


def plan_small(src: str, consts: list[P.SizeConstant], per_tensor: int, total: int, where: str = "CPU",
               device: str | None = None) -> dict:
    """Halve the largest scalable sizes (all equal ones together) until the inputs fit the budget and the
    model's parameters fit 64 x `total` (a network whose widths are constants that the inputs do not show,
    e.g. an MLP's hidden sizes, would otherwise be built at full size).

    With `device`, the plan must also run: a problem that breaks at the smallest sizes (a pooling window or
    a convolution kernel larger than the shrunk image) gets the last halvings undone, one at a time, while
    its inputs stay under the hard limit. A problem that breaks at every one of those (sizes that must keep
    a ratio: a LayerNorm over `out_channels` that a transposed convolution's output width equals only at the
    problem's own sizes) is planned again with every size halved together, the ratios kept. A problem that
    runs at none of them runs at its own sizes if they are under the hard limit (its own error is then the
    one reported), else raises ProblemError saying so."""
    values = {c.name: c.value for c in consts if c.scalable}
    steps = [values]
    for _ in range(200):
        n = _numels(P.with_constants(src, values))
        if not n or not values:
            break
        inputs_fit, params = _fits(src, values, per_tensor, total)
        if inputs_fit and params <= 64 * total:
            break
        m = _largest(values)
        new = P.shrink(m)
        if new == m:
            break
        nxt = _replace(values, m, new)
        if inputs_fit and _param_numel(P.with_constants(src, nxt)) > 0.75 * params:
            break  # the model's size is not set by its largest constant (e.g. hidden widths written inline)
        values = nxt
        steps.append(values)
    n = _numels(P.with_constants(src, values))
    if n and max(n) > 64 * per_tensor:
        raise P.ProblemError(f"inputs too large for {where} verification ({max(n)} elements) and the problem's "
                             "sizes are not module-level constants that can be scaled down")
    if device is None or len(steps) == 1:
        return values
    errors: list[str] = []
    ran = _first_that_runs(src, steps[::-1], per_tensor, device, errors)
    if ran is None:  # every size halved together: one common factor, the ratios between sizes kept
        together = [steps[0]]
        while True:
            inputs_fit, params = _fits(src, together[-1], per_tensor, total)
            nxt = {k: P.shrink(v) for k, v in together[-1].items()}
            if (inputs_fit and params <= 64 * total) or nxt == together[-1]:
                break
            together.append(nxt)
        ran = _first_that_runs(src, together[:0:-1], per_tensor, device, errors)
    if ran is not None:
        return ran
    own = _numels(P.with_constants(src, steps[0]))
    if not own or max(own) <= 64 * per_tensor:
        return steps[0]  # the base run at the problem's own sizes reports its own error (or runs there)
    raise P.ProblemError(f"the problem runs at none of the scaled-down sizes tried for {where} verification "
                         f"(at the smallest: {errors[0] if errors else 'no plan under the limit'}), and at its own "
                         f"sizes its inputs ({max(own)} elements) are too large for {where} verification")


def _first_that_runs(src: str, plans: list[dict], per_tensor: int, device: str, errors: list[str]) -> dict | None:
    """The first plan (in the order given) whose forward runs; stops at the first one whose inputs pass the
    hard limit (64 x `per_tensor`). The errors of those that fail are appended to `errors`."""
    for vals in plans:
        n = _numels(P.with_constants(src, vals))
        if n and max(n) > 64 * per_tensor:
            break
        try:
            _forward_once(P.with_constants(src, vals), device)
            return vals
        except Exception as e:
            errors.append(f"{type(e).__name__}: {str(e)[:300]}")
    return None


def _elems(v: int | tuple[int, ...]) -> tuple[int, ...]:
    return v if isinstance(v, tuple) else (v,)


def _above(values: dict, ref: dict) -> list[str]:
    """The constants of `values` with a size above the same constant's in `ref`."""
    return [k for k, v in values.items() if k in ref and any(a > b for a, b in zip(_elems(v), _elems(ref[k])))]


def _excess(src: str, values: dict, per_tensor: int, total: int) -> float:
    """How far over the budget these sizes are (at most 1: within it): the largest input over `per_tensor`, all inputs
    over `total`, the model's parameters over 64 x `total` (plan_small's limits)."""
    n = _numels(P.with_constants(src, values)) or [0]
    params = _param_numel(P.with_constants(src, values))
    return max(max(n) / per_tensor, sum(n) / total, params / (64 * total))


def _room(src: str, values: dict, per_tensor: int, total: int, together: bool = False) -> dict | None:
    """`values` with sizes halved until they fit the budget (`_excess`): each time the smallest size whose halving
    gets closer to it, all equal ones together (a batch gives way to the row length a fixed block would have to cover;
    a width only the weights show is not halved for inputs that are too large), or with `together` every size at
    once (the ratios between them kept). None when they never fit."""
    for _ in range(200):
        over = _excess(src, values, per_tensor, total)
        if over <= 1:
            return values
        if together:
            steps = [{k: P.shrink(v) for k, v in values.items()}]
        else:
            smaller = sorted({x for v in values.values() for x in _elems(v) if P.shrink(x) < x})
            steps = [_replace(values, x, P.shrink(x)) for x in smaller]
        values = next((nxt for nxt in steps if nxt != values and _excess(src, nxt, per_tensor, total) < over), None)
        if values is None:
            return None
    return None


def plan_large(src: str, consts: list[P.SizeConstant], base: dict, per_tensor: int,
               total: int) -> tuple[list[tuple[dict, str]], str | None]:
    """Sizes above the problem's own for the one "large" trial: every other variant is the problem's size or smaller,
    so a kernel with one fixed block sized for the problem's rows (no loop) passed them all.

    (plans, note). The plans, in the order tried while the reference fails at the one before: every scalable size
    grown (problem.grow), then every size doubled (a size that must stay even or a multiple of its own), doubled and
    halved together (sizes that must keep a ratio); each kept to the budget of the base plan by `_room`, and kept only
    where some size ends above the base trials' (`base`). The note says when the budget left no plan at all, or the
    first one at or under the problem's own sizes (then it checks sizes above the base trials' only)."""
    own = {c.name: c.value for c in consts if c.scalable}
    if not own:
        return [], None
    doubled = {k: P.rescale(v, 2, 1) for k, v in own.items()}
    plans: list[tuple[dict, str]] = []
    for vals, how, together in (({k: P.grow(v) for k, v in own.items()}, "every size grown", False),
                                (doubled, "every size of the problem's own doubled", False),
                                (doubled, "every size doubled, then halved together to fit", True)):
        vals = _room(src, vals, per_tensor, total, together)
        if vals is not None and _above(vals, base) and all(vals != v for v, _ in plans):
            plans.append((vals, how))
    budget = f"the budget ({per_tensor} elements an input, {total} in all)"
    if not plans:
        return [], f"no size above the base trials' fits {budget}"
    if not _above(plans[0][0], own):
        return plans, (f"no size above the problem's own fits {budget}: the large trial's "
                       f"{', '.join(_above(plans[0][0], base))} exceed the base trials' only")
    return plans, None


def _forward_once(src: str, device: str) -> None:
    """One forward of the problem at these sizes (raises what it raises)."""
    import torch

    mod = _exec(src, "_probe_run")
    args, kwargs = init_args(mod)
    model = mod.Model(*args, **kwargs).to(device)
    with torch.no_grad():
        model(*to_device(input_list(mod), device))


# common factors (numerator, denominator) of the variants odd1, odd2, ... when odd sizes break the reference
_ODD_FACTORS = ((5, 4), (3, 4), (7, 4))
RETRY_S = 10.0  # retries at other sizes start only while those before took less than this, all variants together


def _other_sizes(label: str, odd: dict, small: dict, planned: list[dict]):
    """Other sizes for a variant `label` (odd1, odd2, ...) whose odd sizes break the reference, in the order
    tried: (sizes, how in words). First every size of the base plan times one factor (5/4, 3/4, ...: the ratios
    between sizes kept, e.g. an output width that must equal a channel count), then the odd sizes with one size
    at a time kept at its base value (a channel count that a group count must divide). Sizes equal to another
    planned variant's are left out."""
    if not label.startswith("odd"):
        return
    seen = list(planned)
    num, den = _ODD_FACTORS[(int(label[3:]) - 1) % len(_ODD_FACTORS)]
    alts = [({k: P.rescale(v, num, den) for k, v in small.items()}, f"every size of the base plan times {num}/{den}")]
    alts += [({**odd, k: small[k]}, f"odd sizes but {k} = {small[k]!r} (its base size)")
             for k in odd if odd[k] != small[k]]
    for vals, how in alts:
        if all(vals != v for v in seen):
            seen.append(vals)
            yield vals, how


def _signed(xs: list) -> list:
    """Floating inputs mapped from [0, 1) to [-1, 1): KernelBench mostly draws torch.rand, on which
    ReLU, abs or clamp are the identity; a candidate must not get away with returning its input."""
    import torch

    return [x * 2 - 1 if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in xs]


def _ordered(xs: list, descending: bool) -> list:
    """Floating inputs sorted along every axis in turn. Sorting along an axis keeps the earlier axes sorted,
    so every 1-D slice along any axis is sorted: its maximum (ascending) or minimum (descending) is its last
    element and the other extreme its first. Random inputs put a row's extreme at its end only by chance,
    and a reduction that drops the tail element (or the head) passes them by that chance."""
    import torch

    out = []
    for x in xs:
        if isinstance(x, torch.Tensor) and x.is_floating_point() and x.dim() > 0:
            for d in range(x.dim()):
                x = x.sort(dim=d, descending=descending).values
            x = x.contiguous()
        out.append(x)
    return out


def _stressed(xs: list, how: str) -> list:
    """Floating inputs scaled by problem.STRESS_SCALE ("scaled": logits past exp's range, activations a GELU meets in
    a large model) or set to zero ("zeros": a row whose variance is 0, ties everywhere). randn never gets there, and a
    kernel that is only right there (a softmax without its max subtracted, a norm without its eps, an argmax that
    keeps the last of equal values) is wrong on inputs a user passes."""
    import torch

    out = []
    for x in xs:
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            x = x * P.STRESS_SCALE if how == "scaled" else torch.zeros_like(x)
        out.append(x)
    return out


class NothingToVary(Exception):
    """The problem passes no argument the variant can change (no float for "args", no int or bool for "ints")."""


def _varied(x, counter: list):
    """`x` with every Python float (in lists, tuples and dicts too) times problem.ARG_FACTOR; counter[0] counts them.
    Ints are left alone (sizes, dims, counts: structural), and so are bools and tensors."""
    if isinstance(x, float):
        counter[0] += 1
        return x * P.ARG_FACTOR
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_varied(v, counter) for v in x)
    if isinstance(x, dict):
        return {k: _varied(v, counter) for k, v in x.items()}
    return x


def _int_leaves(x, path: tuple = ()) -> list[tuple[tuple, int]]:
    """(path, value) of every Python int and bool in `x`, lists, tuples (not named ones) and dicts opened."""
    if type(x) in (int, bool):
        return [(path, x)]
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return [leaf for i, v in enumerate(x) for leaf in _int_leaves(v, path + (i,))]
    if isinstance(x, dict):
        return [leaf for k, v in x.items() for leaf in _int_leaves(v, path + (k,))]
    return []


def _with_leaf(x, path: tuple, new):
    """`x` with the leaf at `path` replaced by `new` (containers copied along the path, nothing else)."""
    if not path:
        return new
    if isinstance(x, dict):
        return {k: _with_leaf(v, path[1:], new) if k == path[0] else v for k, v in x.items()}
    return type(x)(_with_leaf(v, path[1:], new) if i == path[0] else v for i, v in enumerate(x))


def _other_ints(v: int) -> list[int]:
    """Values to try in place of an int argument, in order: a bool negated, an int moved by one away from zero
    first, then towards it, its sign kept (a count of 3 becomes 4, else 2; 0 becomes 1)."""
    if type(v) is bool:
        return [not v]
    if v == 0:
        return [1]
    step = 1 if v > 0 else -1
    return [v + step] + ([v - step] if abs(v) > 1 else [])


def _arg_names(fn, n: int) -> list[str | None]:
    """The parameter names of method `fn` (self aside) that `n` positional arguments bind to (None where unknown,
    e.g. *args)."""
    import inspect

    try:
        params = list(inspect.signature(fn).parameters.values())[1:]
    except (TypeError, ValueError):
        return [None] * n
    pos = [q.name for q in params if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)]
    return (pos + [None] * n)[:n]


def _structure(out) -> list:
    """What an output is, sizes aside: each leaf's type, and a tensor's dtype and number of dimensions."""
    import torch

    return [(type(t).__name__, str(t.dtype), t.dim()) if isinstance(t, torch.Tensor) else type(t).__name__
            for t in _leaves(out)]


MAX_INT_PROBES = 16  # int and bool arguments tried one at a time (each a forward of the reference at the small sizes)


def _int_changes(mod, device: str, seed: int, input_seed: int, sizes: set[int],
                 dropped: list[str]) -> list[tuple[tuple, int]]:
    """The int and bool arguments the "ints" variant changes, as (path, new value) into (init args, init kwargs,
    forward inputs). Each is tried alone on the reference, and changed only where the reference still runs, its output
    keeps its structure (leaf types, dtypes, numbers of dimensions) and stays finite, and the output changes (else the
    change tests nothing). Left alone: ints equal to a scalable size constant (the size variants change those),
    arguments named like dimension selectors (problem.ARG_SELECTOR). Changes the reference cannot run are described
    in `dropped` (they are named in the verdict's flags, as values outside the problem's domain)."""
    import torch

    from .compare import compare

    def forward(changes: list[tuple[tuple, int]]):
        seed_all(seed)
        args = (*init_args(mod), None)
        for path, new in changes:
            if path[0] < 2:
                args = _with_leaf(args, path, new)
        seed_all(seed)
        model = mod.Model(*args[0], **args[1]).to(device)
        seed_all(input_seed + 1)
        inputs = input_list(mod)
        for path, new in changes:
            if path[0] == 2:
                inputs = _with_leaf(inputs, path[1:], new)
        with torch.no_grad():
            return _cpu(model(*to_device(inputs, device)))

    seed_all(seed)
    pos, kw = init_args(mod)
    seed_all(input_seed + 1)
    inputs = input_list(mod)
    names = (_arg_names(mod.Model.__init__, len(pos)), None, _arg_names(mod.Model.forward, len(inputs)))
    leaves = [(path, v) for path, v in _int_leaves((pos, kw, inputs))
              if not (type(v) is int and v in sizes)][:MAX_INT_PROBES]
    base = forward([])
    keep: list[tuple[tuple, int]] = []
    for path, v in leaves:
        name = path[1] if path[0] == 1 else names[path[0]][path[1]]
        if name is not None and P.ARG_SELECTOR.search(str(name)):
            continue
        label = str(name if name is not None else f"{'forward' if path[0] == 2 else '__init__'} argument {path[1]}")
        label += "".join(f"[{k!r}]" for k in path[2:])
        why = None
        for new in _other_ints(v):
            try:
                out = forward([(path, new)])
            except Exception as e:
                why = why or f"{label} = {new!r} instead of {v!r} ({type(e).__name__}: {str(e)[:120]})"
                continue
            if _structure(out) != _structure(base):
                continue  # another kind of output (keepdim, return_indices): not a comparison of the same thing
            if not _finite(out):
                why = why or f"{label} = {new!r} instead of {v!r} (non-finite outputs)"
                continue
            try:
                same = compare(base, out)[0]
            except Exception:
                same = False  # shapes differ: the output did change
            if not same:
                keep.append((path, new))
                why = None
            break
        if why:
            dropped.append(why)
    return keep


def _finite(out) -> bool:
    """No NaN or inf in any floating tensor of `out` (a tensor, or lists and tuples of them)."""
    import torch

    from .compare import _flatten

    return all(bool(torch.isfinite(t).all()) for t in _flatten(out)
               if isinstance(t, torch.Tensor) and t.is_floating_point())


class Unverifiable(Exception):
    """The reference runs, but what it returns is something no kernel can be checked against (a random output,
    a Python number computed from tensor values): a usage error with its own message, not a verdict."""


def _run_config(src: str, device: str, seed: int, n_trials: int, name: str, perturb: bool,
                signed: bool = False, ordered: bool = False, input_seed: int = 0, base: bool = False,
                values: str | None = None, state_at: int | None = None, counters: tuple[str, ...] = (),
                sizes: frozenset = frozenset(), dropped: list | None = None):
    """(module, init args, model, trials, names of kept tensors forward changed, indices of inputs forward changed
    in place). Each trial is (inputs on the device, output, host copies of the inputs taken before forward): a
    reference that changes its inputs in place (x.relu_(), x.mul_(2)) must not hand its changed inputs to the
    candidates, which would compute the op a second time. `base`: also check that forward is not random."""
    import torch

    mod = _exec(src, name)
    seed_all(seed)
    init = init_args(mod)
    varied = [0]
    if values == "args":  # another configuration: a candidate must read its arguments, not hard-code the problem's
        init = (_varied(init[0], varied), _varied(init[1], varied))
    changes = []
    if values == "ints":  # the same for int and bool arguments, where the reference runs with other values
        changes = _int_changes(mod, device, seed, input_seed, sizes, [] if dropped is None else dropped)
        if not changes:
            raise NothingToVary()
        for path, new in changes:
            if path[0] < 2:
                init = _with_leaf(init, path, new)
    seed_all(seed)
    model = mod.Model(*init[0], **init[1]).to(device)
    if perturb:
        perturb_parameters(model, seed)
        perturb_counters(model, list(counters), seed)
    kept = snapshot(kept_tensors(model))
    versions = tensor_versions(kept_tensors(model))
    py_state = python_state([model])  # a reference that keeps Python state (a step count) lets candidates keep it too
    twin = None
    if base:
        try:  # the model as it is before its first call, for a second call under another RNG state
            twin = copy.deepcopy(model)
        except Exception:
            twin = None
    trials = []
    mutated: list[int] = []
    state: dict = {}
    state_names: list[str] | None = None
    for t in range(n_trials):
        # inputs from their own seed, which never leaves this sandbox: the candidate is constructed under `seed`
        # (for the same weights), so inputs drawn from seeds derived from it could be predicted in __init__
        seed_all(input_seed + 1 + t)
        inputs = to_device(input_list(mod), device)
        if signed:
            inputs = _signed(inputs)
        if ordered:
            inputs = _ordered(inputs, descending=t % 2 == 1)
        if values in ("scaled", "zeros"):
            inputs = _stressed(inputs, values)
        elif values == "args":
            inputs = _varied(inputs, varied)
            if not varied[0]:
                raise NothingToVary()
        for path, new in changes:  # the "ints" variant's changes of forward's arguments
            if path[0] == 2:
                inputs = _with_leaf(inputs, path[1:], new)
        given = [_cpu(x, copy=True) for x in inputs]
        with torch.no_grad():
            out = model(*inputs)
        if t == 0:
            mutated = [i for i, (g, x) in enumerate(zip(given, inputs))
                       if isinstance(x, torch.Tensor) and not torch.equal(g, _cpu(x))]
        if t == 0 and twin is not None:
            _check_not_random(twin, given, out, device, input_seed + 7919)
            twin = None
        trials.append((inputs, out, given))
        if t + 1 == (state_at or n_trials):  # the tensors it keeps that forward changed, as the candidate's must be
            now = kept_tensors(model)       # after as many calls (the base variant's timed sets come later)
            state_names = changed_tensors(kept, now)
            state = {k: _cpu(now[k], copy=True) for k in state_names if k in now}
    if base:
        _check_python_numbers([o for _, o, _ in trials])
    if state_names is None or (state_at or n_trials) != n_trials:  # trials after the snapshot: diff again
        state_names = changed_tensors(kept, kept_tensors(model))
    changed = (state_names + versions_moved(versions)
               + python_state_changes(py_state, python_state([model]), strict=False))
    return mod, init, model, trials, changed, mutated, state


def _check_not_random(twin, given: list, out, device: str, seed: int) -> None:
    """Raise Unverifiable when a second model, copied from the first before its call, returns something else on the
    same inputs under another RNG state (dropout in training mode, torch.rand in forward): no kernel can match a
    random output, and every candidate would fail with a mismatch that says nothing about why."""
    import torch

    from .compare import compare

    seed_all(seed)
    with torch.no_grad():
        again = twin(*to_device(copy.deepcopy(given), device))
    try:
        ok, msg, _, _ = compare(_cpu(out), _cpu(again))
    except Exception:  # outputs compare cannot read: not this check's business
        return
    if not ok:
        raise Unverifiable(
            "Model.forward is random: called twice on the same inputs, from the same weights, under different random "
            f"states, it returned different results ({msg}). No kernel can match a random output. Dropout in "
            "training mode is the usual cause (the verifier runs the module as constructed, in training mode, as "
            "KernelBench does): give it probability 0 for verification (e.g. pass p=0.0 from get_init_inputs), or "
            "remove torch.rand/randn/bernoulli/dropout calls from forward.")


def _check_python_numbers(outs: list) -> None:
    """Raise Unverifiable when forward returns a Python number (not a tensor) whose value changes with the inputs'
    values: it was computed from tensor data (.item(), float(t), int(t.sum())), which a Triton kernel hands back as
    a tensor; a candidate could reproduce it only by reading its result into Python, which the verifier refuses.
    Numbers that stay the same (a shape, a constant) are compared as they are."""
    flat = [_leaves(o) for o in outs]
    if len(flat) < 2 or any(len(f) != len(flat[0]) for f in flat):
        return
    for i, vals in enumerate(zip(*flat)):
        if type(vals[0]) in (int, float, complex) and len({repr(v) for v in vals}) > 1:
            where = f"output {i}" if len(flat[0]) > 1 else "its output"
            raise Unverifiable(
                f"Model.forward returns a Python {type(vals[0]).__name__} as {where}, computed from tensor values "
                f"(it differs between inputs: {vals[0]!r}, {vals[1]!r}), e.g. by .item() or float(tensor). A Triton "
                "kernel's result is a tensor: return the tensor itself (drop the .item()); the caller can convert "
                "it.")


def _cpu(x, copy: bool = False):
    """Tensors to CPU (`copy`: always a copy, also of a tensor already there); config objects (dataclasses,
    namespaces) to SimpleNamespace, the one non-primitive type the candidate side may load (the problem's classes
    stay here). Tuples (named ones too) become plain tuples, dicts plain dicts."""
    import dataclasses
    import types

    import torch

    if isinstance(x, torch.Tensor):
        return x.detach().to("cpu", copy=True) if copy else x.detach().cpu()
    if isinstance(x, tuple):
        return tuple(_cpu(v, copy) for v in x)
    if isinstance(x, list):
        return [_cpu(v, copy) for v in x]
    if isinstance(x, dict):
        return {k: _cpu(v, copy) for k, v in x.items()}
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return types.SimpleNamespace(**{f.name: _cpu(getattr(x, f.name), copy) for f in dataclasses.fields(x)})
    if isinstance(x, types.SimpleNamespace):
        return types.SimpleNamespace(**{k: _cpu(v, copy) for k, v in vars(x).items()})
    return x


def _leaves(x) -> list:
    """What an output holds, in order: lists, tuples (named ones too) and dicts opened, anything else one leaf."""
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _leaves(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _leaves(v)]
    return [x]


def _tensors(x) -> list:
    """The tensors in an output."""
    import torch

    return [t for t in _leaves(x) if isinstance(t, torch.Tensor)]


def _may_retry(spent: float, start: float, per_trial: float, trials_left: int, timeout: float | None) -> str | None:
    """Why no retry at other sizes may start now, or None when one may: the retries so far took RETRY_S, or
    one more trial and those still to come would pass half the reference's time limit (a slow problem, a
    loaded machine: the variants are not worth the reference run itself)."""
    if spent > RETRY_S:
        return f"retries at other sizes stop after {RETRY_S:.0f} s"
    if timeout and time.monotonic() - start + per_trial * (1 + trials_left) > timeout / 2:
        return f"no time left for other sizes within half the reference's {timeout:.0f} s limit"
    return None


def _skip_ints(skipped: list[dict], vals: dict, dropped: list[str]) -> None:
    """Name the int and bool arguments the "ints" variant left as they were because the reference fails (or turns
    non-finite) with other values: outside the problem's domain, flagged as the float variants' failures are."""
    if dropped:
        skipped.append({"label": "ints", "kind": "values", "constants": vals,
                        "why": "int or bool arguments the reference cannot take: " + "; ".join(dropped)})


def main(job_path: str) -> int:
    start = time.monotonic()
    job = json.load(open(job_path))
    device, seed = job["device"], job["seed"]
    input_base = random.SystemRandom().randrange(2**31 - 10**6)  # trial inputs' seeds: never sent to a candidate
    skipped: list[dict] = []  # variants the reference cannot run (or runs only in part): named in the verdicts' flags
    try:
        import torch

        src = open(job["problem"]).read()
        P.parse_problem(src)
        consts = P.size_constants(src)
        t_plan = time.monotonic()
        small = plan_small(src, consts, job["per_tensor"], job["total"], device=device)
        if device == "cuda":  # the problem's own sizes ({}), shrunk only past the GPU budget
            planned = plan_small(src, consts, job["gpu_per_tensor"], job["gpu_total"], "GPU", device=device)
            base_vals = {} if planned == {c.name: c.value for c in consts if c.scalable} else planned
        else:
            base_vals = small
        # timed_sets more base trials when candidates are timed: each timed call of the candidate's timing phase runs
        # on inputs it has not seen (a cache keyed by the inputs' contents hit on every timed call when the timing
        # loop replayed the correctness trials' inputs), and their outputs are checked against these
        per_set = sum(_numels(P.with_constants(src, base_vals))) or 1
        extra = min(job.get("timed_sets", 0), max(1, job["gpu_total" if device == "cuda" else "total"] // per_set))
        configs = [("base", base_vals, job["trials"] + extra)]
        for k in range(job["perturb"]):
            odd = {n: P.oddify(v, k) for n, v in small.items()}
            if odd and odd != base_vals and all(odd != c[1] for c in configs):
                configs.append((f"odd{k + 1}", odd, 1))
        own = {c.name: c.value for c in consts if c.scalable}
        large_alts: list[tuple[dict, str]] = []
        if job.get("larger"):  # one trial above the problem's own sizes, within the budget the base trials keep
            gpu = device == "cuda"
            budget = (job["gpu_per_tensor"], job["gpu_total"]) if gpu else (job["per_tensor"], job["total"])
            plans, large_note = plan_large(src, consts, {**own, **base_vals}, *budget)
            if plans and all(plans[0][0] != c[1] for c in configs):
                configs.append(("large", plans[0][0], 1))
                large_alts = plans[1:]  # where the reference fails at the first (sizes that must keep a ratio)
            if large_note:
                skipped.append({"label": "large", "kind": "limited", "constants": plans[0][0] if plans else {},
                                "why": large_note})
        if job.get("ordered"):  # at the CPU sizes on a GPU too: ends are ends at any size, and it stays cheap
            configs.append(("ordered", small, 2))
        if job.get("values"):  # other values at the same small sizes: one trial each
            configs += [(label, small, 1) for label in P.VALUE_VARIANTS]
    except Exception as e:  # the problem itself does not load: a usage error, not a verdict
        write_json("error.json", error_info("problem", e))
        return 0
    # this worker's own clock (diagnostics for the verdict's phases, never judged): where a reference's seconds go
    t_runs = time.monotonic()
    clock = {"reference_import": t_plan - start, "reference_plan": t_runs - t_plan}
    cand_side, ref_side, shapes, state_changed = [], [], [], []
    dropped: list[str] = []  # the "ints" variant's changes the reference cannot run
    spent = 0.0  # seconds of retries at other sizes, all variants together (at most RETRY_S + one more)
    per_trial = 0.0  # seconds of one base trial, model construction included
    counters: list[str] = []  # integer buffers the base trials changed (step counts): perturbed configs start them high
    for i, (label, vals, n) in enumerate(configs):
        cseed = seed + 1000 * i
        t_config = time.monotonic()
        run = functools.partial(_run_config, device=device, seed=cseed, n_trials=n, name=f"ref_{label}",
                                input_seed=input_base + 1000 * i, base=label == "base",
                                perturb=label.startswith("odd"), signed=label == "odd2", ordered=label == "ordered",
                                values=label if label in P.VALUE_VARIANTS else None,
                                state_at=job["trials"] if label == "base" else None, counters=tuple(counters),
                                sizes=frozenset(x for v in vals.values() for x in _elems(v)), dropped=dropped)
        note = None
        dropped.clear()
        try:
            _, init, model, trials, changed, mutated, state = run(P.with_constants(src, vals))
        except NothingToVary:
            _skip_ints(skipped, vals, dropped)
            continue
        except Exception as e:
            if label in P.VALUE_VARIANTS:  # values outside the problem's domain (a probability times 32): not a test
                skipped.append({"label": label, "kind": "values", "constants": vals, "why": f"{P.VALUE_VARIANTS[label]} "
                                f"break the reference ({type(e).__name__}: {str(e)[:200]})"})
                continue
            if label == "base":
                write_json("error.json", error_info("unverifiable" if isinstance(e, Unverifiable) else "problem", e))
                return 0
            tried = [f"the reference fails at {vals}: {type(e).__name__}: {str(e)[:300]}"]
            planned = [c[1] for c in configs] + [x["constants"] for x in shapes]
            if label == "odd2":  # its inputs mapped to [-1, 1) may be what breaks it (a probability, a target of BCE):
                try:              # the same odd sizes on the problem's own input values first
                    _, init, model, trials, changed, _, state = run(P.with_constants(src, vals), signed=False)
                    note = {"values": "the problem's own input values", "note": "inputs mapped to [-1, 1) break the "
                            f"reference ({type(e).__name__}: {str(e)[:200]})"}
                except Exception as e2:
                    tried[0] += f"; on the problem's own input values too: {type(e2).__name__}: {str(e2)[:200]}"
            alts = large_alts if label == "large" else _other_sizes(label, vals, small, planned)
            for alt, how in ([] if note else alts):
                if why_not := _may_retry(spent, start, per_trial, sum(c[2] for c in configs[i + 1:]),
                                         job.get("timeout_s")):
                    tried[0] += f" ({why_not})"
                    break
                t0 = time.monotonic()
                try:
                    _, init, model, trials, changed, _, state = run(P.with_constants(src, alt))
                    what = "larger" if label == "large" else "odd"
                    note, vals = {"sizes": how, "note": f"{what} sizes break the reference ({tried[0]})"}, alt
                    break
                except Exception as e2:
                    tried.append(f"{how} {alt}: {type(e2).__name__}: {str(e2)[:200]}")
                finally:
                    spent += time.monotonic() - t0
            if note is None:
                skipped.append({"label": label, "constants": vals, "why": tried[0] + (
                    f" (and at {len(tried) - 1} other sizes tried)" if len(tried) > 1 else ""), "tried": tried[1:]})
                continue
        if (label == "ordered" or label in P.VALUE_VARIANTS) and not all(_finite(o) for _, o, _ in trials):
            # values outside the problem's domain (a log of a sorted difference, of zeros): not a test
            what = P.VALUE_VARIANTS.get(label, "inputs sorted along every axis")
            skipped.append({"label": label, **({"kind": "values"} if label in P.VALUE_VARIANTS else {}),
                            "constants": vals, "why": f"{what} give the reference non-finite outputs (outside the "
                            "problem's domain)"})
            continue
        _skip_ints(skipped, vals, dropped)
        cand_side.append({"label": label, "seed": cseed, "init": _cpu(init[0]), "init_kwargs": _cpu(init[1]),
                          "perturb": label.startswith("odd"), "counters": list(counters),
                          "inputs": [given for _, _, given in trials],  # as they were before forward
                          **({"timed_from": job["trials"]} if label == "base" and extra else {})})
        ref_side.append({"label": label, "outputs": [_cpu(o) for _, o, _ in trials], "state": state})
        state_changed += [f"{label}: {name}" for name in changed]
        shapes.append({"label": label, "constants": {k: v for k, v in vals.items()},
                       "inputs": shapes_of(trials[0][0]), **(note or {})})
        if label == "base":
            base_model, base_inputs, inputs_mutated = model, trials[0][0], mutated
            counters = [k for k, v in state.items() if not (v.is_floating_point() or v.is_complex())]
            per_trial = (time.monotonic() - t_config) / n
        del trials
    t_save = time.monotonic()
    clock["reference_runs"] = t_save - t_runs  # every variant's runs, retries at other sizes and skipped ones included
    torch.save(cand_side, "for_candidate.pt")
    torch.save(ref_side, "ref_outputs.pt")
    # a stateful reference (e.g. batch norm's running statistics) lets candidates keep state too; inputs it changes in
    # place name themselves in the message a candidate that changes them gets
    write_json("state.json", {"changed": state_changed, "inputs_mutated": inputs_mutated})
    write_json("shapes.json", shapes)
    write_json("skipped.json", skipped)  # variants the reference itself cannot run: candidates are not checked there
    clock["reference_save"] = time.monotonic() - t_save
    write_json("clock.json", {k: round(v, 3) for k, v in clock.items()})
    if job.get("time"):  # a GPU (or a CPU in tests of the timing protocol)
        # With lazy timing the candidates start now: the baseline is timed only when one of them passes
        # correctness and needs a speedup, and its torch.compile warm-up runs meanwhile, beside their compiles.
        ctl = Control()
        if job.get("lazy"):
            ctl.outputs_ready()
        timing = {}
        compiled = None
        try:
            if job.get("compile", True):
                compiled = torch.compile(base_model)
                with torch.no_grad():
                    compiled(*base_inputs)
        except Exception as e:
            timing["compile_error"] = error_info("compile", e)["message"]
            compiled = None
        if ctl.wait_for_gpu():
            from .timing import event_ms

            with torch.no_grad():
                timing["eager_ms"] = event_ms(lambda: base_model(*base_inputs), device=device)
                if compiled is not None:
                    timing["compile_ms"] = event_ms(lambda: compiled(*base_inputs), device=device)
            nbytes = sum(x.numel() * x.element_size() for x in base_inputs if isinstance(x, torch.Tensor))
            with torch.no_grad():
                out = base_model(*base_inputs)
            nbytes += sum(o.numel() * o.element_size() for o in _tensors(out))
            timing["io_bytes"] = nbytes
        write_json("timing.json", timing)
    write_json("done.json", {"ok": True})
    return 0


def _warm(device: str) -> None:
    """Trusted, before any job: what the first size plan of a worker paid. Tensors on the meta device (the plan sizes
    inputs and models there) import torch's symbolic-shapes machinery and sympy: 0.5-2 s on this repo's CPU machine,
    1.7-3.5 s of every reference on an H100 (benchmarks/results/h100_20261206/). Then the warm-up kernel (Triton's
    compiler, for the torch.compile baseline). Kept short: a worker the pool starts after a job must be warm before
    the next request (warming torch's BLAS and cuDNN handles too made it late on an H100)."""
    import torch

    from . import _warm_kernel

    try:
        with torch.device("meta"):
            torch.nn.Linear(4, 4)(torch.randn(2, 4))
        _warm_kernel.run(device)
    except Exception as e:  # only a head start: the job itself will meet (and report) whatever this is
        print(f"reference warm-up failed: {type(e).__name__}: {e}", file=sys.stderr)


if __name__ == "__main__":
    rc = serve(main, sys.argv, warm=_warm)
    # at once, without the interpreter's teardown (torch's modules, the problem's objects): 0.3-0.5 s here, in front
    # of every candidate when the supervisor waits for this exit (no baseline to time)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)
