"""A problem's reference run started ahead of its candidates (`ReferenceRun`): what the language server and
`training.eval` do while the model writes the candidates."""
from __future__ import annotations

import pytest

from conftest import CORPUS, ROOT
from verifier import ReferenceRun, VerifyConfig, verify_batch
from verifier.problem import ProblemError

PROBLEM = (CORPUS / "problems" / "relu.py").read_text()
HONEST = (ROOT / "examples" / "relu_candidate.py").read_text()
WRONG = HONEST.replace("tl.maximum(x, 0.0)", "tl.maximum(x, 1.0)")
CFG = VerifyConfig(device="cpu", trials=1, perturb=1)


def test_a_reference_run_serves_batches_until_its_owner_closes_it():
    assert WRONG != HONEST
    run = ReferenceRun(PROBLEM, CFG)
    assert run.started  # on a CPU nothing is timed: it runs at once
    vs = verify_batch(PROBLEM, [HONEST, WRONG], CFG, reference=run)
    assert [v.ok for v in vs] == [True, False] and vs[1].stage == "correctness", [v.summary() for v in vs]
    ref = run.result()
    assert not ref.worker.closed and ref.worker.work.is_dir()  # the batch leaves it to its owner
    again = verify_batch(PROBLEM, [HONEST], CFG, reference=run)
    assert again[0].ok and again[0].shapes == vs[0].shapes
    run.close()
    assert ref.worker.closed and not ref.worker.dir.exists()
    with pytest.raises(RuntimeError):
        run.result()
    other = ReferenceRun(PROBLEM, CFG)
    with pytest.raises(ValueError):  # another problem's reference is never used
        verify_batch(PROBLEM.replace("relu", "relu "), [HONEST], CFG, reference=other)
    other.close()


def test_a_broken_problem_fails_where_the_batch_would_have_failed():
    broken = PROBLEM.replace("def get_inputs():\n", "def get_inputs():\n    raise ValueError('no inputs here')\n")
    assert broken != PROBLEM
    run = ReferenceRun(broken, CFG)
    with pytest.raises(ProblemError, match="no inputs here"):
        verify_batch(broken, [HONEST], CFG, reference=run)
    run.close()


@pytest.mark.parametrize("leave", ["sys.exit(3)", "raise SystemExit(3)", "os._exit(3)"])
def test_a_reference_that_exits_is_reported_with_its_exit_code_not_as_timed_out(leave):
    """A reference worker that ends itself closes its end of the pipe while it is still exiting: the verifier used to
    kill it there and report "timed out: did not finish its trials within 90 s" (seen on the GPU for references that
    had failed in seconds, their traceback lost)."""
    dies = PROBLEM + f"\nimport os, sys\nsys.stderr.write('THE-CAUSE\\n')\n{leave}\n"
    with pytest.raises(ProblemError) as e:
        verify_batch(dies, [HONEST], CFG)
    assert "exited with 3" in str(e.value) and "THE-CAUSE" in str(e.value) and "timed out" not in str(e.value)


def test_closing_a_run_still_in_progress_frees_its_sandbox_when_it_ends():
    import time

    run = ReferenceRun(PROBLEM, CFG)
    fut = run._fut
    while not (fut.running() or fut.done()):  # (closed before it starts, it never starts)
        time.sleep(0.01)
    run.close()  # returns at once; the sandbox goes when the run ends
    ref = fut.result(timeout=120)
    deadline = time.monotonic() + 10
    while not ref.worker.closed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ref.worker.closed


def test_an_eager_gpu_baseline_is_not_timed_while_a_model_generates():
    """A baseline timed beside the model's generation on the same GPU would be slow (and every speedup
    inflated): with eager baseline timing the run waits to be asked for; lazy timing or no timing runs ahead."""
    from verifier.runner import VerifyConfig as C, _runs_ahead

    assert not _runs_ahead(C(device="cuda", lazy_baseline=False))
    assert _runs_ahead(C(device="cuda")) and _runs_ahead(C(device="cuda", measure=False))  # lazy: the default
    assert _runs_ahead(C(device="cpu"))


def test_odd_sizes_that_break_a_ratio_are_replaced_by_one_common_factor():
    """Odd sizes break out_channels == 2 x length (the coincidence of KernelBench level 2's 3 and 34): the
    odd variants then run with every size of the base plan times 5/4 and 3/4, so other shapes are still
    checked, and each says why in its note."""
    from test_problem import RATIO

    run = ReferenceRun(RATIO, CFG.__class__(device="cpu", trials=1, perturb=2, larger=False))
    try:
        ref = run.result()
    finally:
        run.close()
    assert [s["label"] for s in ref.shapes] == ["base", "odd1", "odd2", "ordered", "scaled", "zeros"] and not ref.skipped, ref.shapes
    base, odd1, odd2 = (s["constants"] for s in ref.shapes[:3])
    assert base["out_channels"] == 2 * base["length"] and "note" not in ref.shapes[0]
    assert odd1["length"] == base["length"] * 5 // 4 and odd2["length"] == base["length"] * 3 // 4
    for s in ref.shapes[1:3]:
        assert s["constants"]["out_channels"] == 2 * s["constants"]["length"]
        assert "times" in s["sizes"] and "normalized_shape" in s["note"], s


def test_odd_sizes_keep_one_size_the_reference_needs():
    """A reference that runs only where dim is a multiple of 512 (as a group count divides channels) runs at
    no odd size, nor at 5/4 or 3/4 of its sizes: the odd variants keep dim at its base size and change the
    batch, so other shapes are still checked."""
    fussy = PROBLEM.replace("return torch.relu(x)", "assert x.shape[1] % 512 == 0, 'dim must be a multiple of "
                            "512'\n        return torch.relu(x)")
    assert fussy != PROBLEM
    run = ReferenceRun(fussy, CFG.__class__(device="cpu", trials=1, perturb=2, larger=False))
    try:
        ref = run.result()
    finally:
        run.close()
    assert [s["label"] for s in ref.shapes] == ["base", "odd1", "odd2", "ordered", "scaled", "zeros"] and not ref.skipped, ref.shapes
    assert ref.shapes[1]["constants"] == {"batch_size": 17, "dim": 1024}, ref.shapes[1]
    assert ref.shapes[2]["constants"] == {"batch_size": 15, "dim": 1024}, ref.shapes[2]
    assert "dim = 1024" in ref.shapes[1]["sizes"] and "multiple of 512" in ref.shapes[1]["note"]


def test_variants_the_reference_cannot_run_are_flagged_on_every_verdict():
    """A reference that runs only where the batch is a multiple of 16 and dim one of 512 runs at no other shape
    tried: the odd variants are dropped, and each verdict says that fewer shapes were checked and why. The
    shapes that remain still check the candidates (a wrong one fails)."""
    fussy = PROBLEM.replace("return torch.relu(x)", "assert x.shape[1] % 512 == 0 and x.shape[0] % 16 == 0, "
                            "'dim must be a multiple of 512'\n        return torch.relu(x)")
    assert fussy != PROBLEM
    vs = verify_batch(fussy, [HONEST, WRONG], CFG.__class__(device="cpu", trials=1, perturb=2, larger=False))
    assert [v.ok for v in vs] == [True, False] and vs[1].stage == "correctness", [v.summary() for v in vs]
    for v in vs:
        assert [s["label"] for s in v.shapes] == ["base", "ordered", "scaled", "zeros"]
        flag = [f for f in v.flags if f.rule == "shapes-skipped"]
        assert flag and "2 of 4" in flag[0].message and "odd1" in flag[0].message and "odd2" in flag[0].message
        assert "multiple of 512" in flag[0].message
    assert "shapes-skipped" in vs[0].summary()


@pytest.mark.parametrize("edit,message", [
    ("return [torch.randn(batch_size, dim)]", "get_inputs() must return a list of forward's arguments; it returned "
     "Tensor (write `return [x]`"),
    ("return []\n", "get_init_inputs() must return a list of Model's arguments (or a dict of keyword arguments); it "
     "returned NoneType"),
])
def test_inputs_that_are_not_lists_are_named_not_iterated(edit, message):
    """A tensor from get_inputs() ran forward with one argument per row; None from get_init_inputs() failed as
    "'NoneType' object is not iterable"."""
    new = {"return [torch.randn(batch_size, dim)]": "return torch.randn(batch_size, dim)",
           "return []\n": "return None\n"}[edit]
    broken = PROBLEM.replace(edit, new)
    assert broken != PROBLEM
    with pytest.raises(ProblemError) as e:
        verify_batch(broken, [HONEST], CFG)
    assert message in str(e.value)
