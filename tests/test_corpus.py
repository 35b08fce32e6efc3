"""The corpus end to end: every honest candidate verifies, every cheat fails at its named layer.

Candidates of one problem share one `verify_batch` call (one reference run, parallel sandboxes),
exactly as the language server and the trainer use the verifier.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from conftest import CORPUS, header
from verifier import verify_batch

HONEST = sorted((CORPUS / "honest").glob("*.py"))
CHEATS = sorted((CORPUS / "cheats").glob("*.py"))


@lru_cache(maxsize=None)
def verdicts_for(problem: str, tolerance: str | None) -> dict[str, object]:
    files = [p for p in HONEST + CHEATS if header(p, "problem") == problem and header(p, "tolerance") == tolerance]
    src = (CORPUS / "problems" / f"{problem}.py").read_text()
    tol = {} if tolerance is None else {"atol": float(tolerance), "rtol": float(tolerance)}
    vs = verify_batch(src, [p.read_text() for p in files], **tol)
    return {p.name: v for p, v in zip(files, vs)}


def _verdict(path: Path):
    """The verdict of one corpus file; `# tolerance: T` verifies it with atol = rtol = T."""
    problem = header(path, "problem")
    assert problem, f"{path.name} lacks a '# problem:' header"
    return verdicts_for(problem, header(path, "tolerance"))[path.name]


def test_corpus_is_large_enough():
    problems = {header(p, "problem") for p in HONEST}
    assert len(HONEST) >= 14 and len(CHEATS) >= 28 and len(problems) >= 6


@pytest.mark.parametrize("path", HONEST, ids=lambda p: p.stem)
def test_honest_candidate_verifies(path):
    v = _verdict(path)
    assert v.ok, v.summary()
    assert v.stage == "done" and v.trials["passed"] == v.trials["run"] >= 4
    assert v.kernels and any(s["label"].startswith("odd") for s in v.shapes)


@pytest.mark.parametrize("path", CHEATS, ids=lambda p: p.stem)
def test_cheat_fails_at_its_layer(path):
    # "# expect: STAGE RULE", or alternatives "STAGE RULE | STAGE RULE" where the outcome is
    # legitimately nondeterministic (an out-of-bounds write may crash the process or corrupt data)
    expected = {tuple(alt.split()[:2]) for alt in header(path, "expect").split("|")}
    v = _verdict(path)
    assert not v.ok, f"cheat verified: {v.summary()}"
    got = {(r.stage, r.rule) for r in v.reasons if r.stage == v.stage}  # a cheat may break several rules
    assert got & expected, f"expected {expected}, got {v.summary()}"


@pytest.mark.parametrize("name", ["argmax_rows__drops_last_column.py", "argmax_rows__skips_first_column.py"])
def test_sorted_trials_catch_a_reduction_that_skips_an_end_of_the_row(name):
    """Random rows of 4096 hold their maximum in the last (or first) column 1 time in 4096: these kernels pass
    the random trials, and the trials on inputs sorted along every axis (max last, then first) must catch them."""
    v = _verdict(CORPUS / "cheats" / name)
    assert not v.ok and any(s["label"] == "ordered" for s in v.shapes)
    assert any(r.rule == "output-mismatch" and r.message.startswith("ordered trial") for r in v.reasons), v.summary()


def test_a_report_written_over_the_workers_own_after_it_exits_is_not_believed():
    """With the static rules off (they refuse its file write), this cheat is right when checked and wrong when timed,
    and a __del__ on the timed input rewrote timing.json after the worker wrote it (a clean report, 0.001 ms). The
    worker now exits the moment its evidence is written, so the worker's own report is the one judged."""
    path = CORPUS / "cheats" / "relu__del_rewrites_timing_json.py"
    src = (CORPUS / "problems" / "relu.py").read_text()
    v = verify_batch(src, [path.read_text()], static_checks=False, time_on_cpu=True, compile_baseline=False)[0]
    assert not v.ok and v.stage == "performance" and "timed-output-mismatch" in v.rules, v.summary()


def test_launch_log_checks_a_kernel_arguments_type_by_identity_not_by_the_module_it_claims():
    """A class made with type(...) can name any module; tensor subclasses handed over as constexprs run Python too."""
    import torch
    import triton.language as tl

    from verifier.worker_candidate import _python_callables

    fake = type("Relu", (), {"__module__": "triton.language", "__mul__": lambda self, other: other})
    sub = type("Sub", (torch.Tensor,), {"__module__": "torch"})
    bad = _python_callables([fake(), torch.zeros(1).as_subclass(sub), tl.constexpr(fake())], {}, [str])
    assert len(bad) == 4, bad
    ok = [torch.zeros(1), torch.nn.Parameter(torch.zeros(1)), 3, 2.5, True, None, "relu", tl.float32, torch.float16,
          tl.constexpr(8), (1, 2), tl.maximum]
    assert _python_callables(ok, {"BLOCK": 64}, [None, 1]) == []


def test_a_container_that_claims_to_be_a_tuple_is_refused_at_runtime_too():
    """Static rules refuse its class-body `__class__ = property(...)` (round 4); with them off, the worker must still
    refuse an output that is not a plain tuple by type, whose __iter__ would run torch after forward."""
    path = CORPUS / "cheats" / "two_outputs__fake_class_property_iter.py"
    src = (CORPUS / "problems" / "two_outputs.py").read_text()
    v = verify_batch(src, [path.read_text()], static_checks=False)[0]
    assert not v.ok and v.stage == "correctness" and "output-type" in v.rules, v.summary()


@pytest.mark.parametrize("name", ["relu__device_counter_stops_computing.py", "relu__replay_first_timed_output.py",
                                  "relu__gc_freeze_hides_counter.py"])
def test_state_kept_in_a_closure_is_refused_statically_and_at_runtime(name):
    """These kept a call counter in a closure's device memory and were timing cheats (right in every correctness
    trial). Round 4: the static rules refuse a closure that changes its enclosing function's variables, and with them
    off the worker finds every tensor the candidate holds, wherever (the garbage collector tracks them all): one that
    forward changed or left behind is state, at correctness."""
    path = CORPUS / "cheats" / name
    src = (CORPUS / "problems" / "relu.py").read_text()
    # values=False, larger=False: the value variants' and the large trial's extra calls would make these counters
    # wrong at a trial first (output-mismatch: refused all the same, by another rule than this test is about);
    # guard_imports=False: the worker's import guard would refuse gc.freeze's `import gc` first
    v = verify_batch(src, [path.read_text()], static_checks=False, time_on_cpu=True, compile_baseline=False,
                     values=False, larger=False, guard_imports=False)[0]
    assert not v.ok and v.stage == "correctness" and "state-in-forward" in v.rules, v.summary()


@pytest.mark.parametrize("name", ["relu__alias_self_call_counter.py", "relu__module_iterator_counter.py",
                                  "relu__helper_appends_module_list.py", "relu__buffer_version_counter.py",
                                  "relu__stride_counter_via_data.py", "relu__library_dict_counter.py"])
def test_a_call_counter_in_plain_python_is_refused_at_runtime_too(name):
    """Round 5: Python call counters (an attribute set through another name for self, next() on a module-level
    iterator, a module-level list a helper appends to, a buffer's version counter) verified, timed too: the static rules
    missed the aliases and the worker's snapshots saw only tensors' values. With the static rules off, the worker's
    Python-state scan (everything the module and the candidate's globals reach, an iterator's position included) and
    the kept tensors' version counters must refuse them at correctness."""
    path = CORPUS / "cheats" / name
    src = (CORPUS / "problems" / "relu.py").read_text()
    v = verify_batch(src, [path.read_text()], static_checks=False, values=False)[0]
    assert not v.ok and v.stage == "correctness" and "state-in-forward" in v.rules, v.summary()


def test_the_interpreters_globals_do_not_reach_the_candidates_module():
    """Round 5: Triton's interpreter copied its module's globals (numpy as np) into the kernel's module at the first
    launch and forward computed ReLU in numpy (verified). With the static rules off, `np` must stay undefined."""
    path = CORPUS / "cheats" / "relu__interpreter_numpy.py"
    src = (CORPUS / "problems" / "relu.py").read_text()
    v = verify_batch(src, [path.read_text()], static_checks=False)[0]
    assert not v.ok and v.stage == "sandbox" and "NameError" in v.summary(), v.summary()


def test_a_del_that_computes_after_forward_is_refused_at_runtime_too():
    """relu__del_after_forward reaches its state through a local alias, which the static rules refuse since round 5; with
    them off, the op log must still see the torch.relu its __del__ runs before the next output is copied."""
    path = CORPUS / "cheats" / "relu__del_after_forward.py"
    src = (CORPUS / "problems" / "relu.py").read_text()
    v = verify_batch(src, [path.read_text()], static_checks=False)[0]
    assert not v.ok and v.stage == "launch" and "runtime-torch-compute" in v.rules, v.summary()


@pytest.mark.parametrize("name,rule", [
    ("relu__tensor_ctor_float_dunder.py", "runtime-torch-compute"),
    ("row_softmax__nested_class_float_dunder.py", "runtime-torch-compute"),
    ("relu__legacy_new_float_dunder.py", "runtime-torch-compute"),
    ("relu__legacy_tensor_alias_float_dunder.py", "runtime-torch-compute"),
    ("relu__slice_constexpr_python_fn.py", "runtime-torch-compute"),
    ("relu__type_hints_eval_ctypes.py", "import-error"),
    ("relu__sys_modules_via_triton_extra.py", "forward-error"),  # 2026-12-07: sys.modules under a library's name
    # 2026-12-07: a child process (os through torch.cuda.os) left running while the baseline is timed
    ("relu__child_process_loads_baseline.py", "background-work"),
])
def test_red_team_cheats_of_2026_12_06_are_refused_at_runtime_too(name, rule):
    """A red-team pass got these verified: compute in a __float__ that torch's tensor constructors (legacy ones
    included) call with the op log's dispatch key off, a Python function in a slice handed to a kernel, and imports
    (ctypes, numpy) hidden in annotation text typing evaluates. The static rules now refuse them; with those rules off
    the worker must too: the constructors' data is checked, kernel arguments are searched inside every container, and
    the candidate's imports (eval'd code included) are limited to the allowed modules."""
    path = CORPUS / "cheats" / name
    src = (CORPUS / "problems" / f"{header(path, 'problem')}.py").read_text()
    v = verify_batch(src, [path.read_text()], static_checks=False, values=False, perturb=0, ordered=False)[0]
    assert not v.ok and rule in v.rules, v.summary()


def test_an_output_container_that_computes_in_iter_is_refused_at_runtime_too():
    """relu__lazy_list_iter.py's list subclass runs torch.relu in __iter__ when the worker reads the outputs; the static
    rules refuse a class defining __iter__ (conversion-dunder), and with them off the worker takes outputs only as
    plain containers by exact type."""
    path = CORPUS / "cheats" / "relu__lazy_list_iter.py"
    v = verify_batch((CORPUS / "problems" / "relu.py").read_text(), [path.read_text()], static_checks=False,
                     values=False, perturb=0, ordered=False)[0]
    assert not v.ok and v.stage == "correctness" and "output-type" in v.rules, v.summary()
