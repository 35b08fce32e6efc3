"""verify_batch's per-candidate progress: each candidate's phases in order, ending in its verdict;
each final verdict told as soon as it is known; a failing callback changes nothing."""
from __future__ import annotations

import threading

from conftest import CORPUS, ROOT
from verifier import VerifyConfig, verify_batch

PROBLEM = (CORPUS / "problems" / "relu.py").read_text()
HONEST = (ROOT / "examples" / "relu_candidate.py").read_text()
WRONG = HONEST.replace("tl.maximum(x, 0.0)", "tl.maximum(x, 1.0)")
STATIC = HONEST.replace("import torch\n", "import torch\nimport os\n", 1)  # a forbidden import


def test_progress_names_each_candidates_phases_and_verdict():
    assert WRONG != HONEST and STATIC != HONEST
    seen: dict[int, list[str]] = {}
    lock = threading.Lock()

    def progress(i: int, phase: str) -> None:
        with lock:
            seen.setdefault(i, []).append(phase)

    cfg = VerifyConfig(device="cpu", trials=1, perturb=1)
    told: list[tuple[int, object, str]] = []   # (i, verdict, the phases seen by then): from the caller's thread
    caller = threading.get_ident()

    def on_verdict(i: int, v) -> None:
        assert threading.get_ident() == caller
        told.append((i, v, list(seen.get(i, []))))

    vs = verify_batch(PROBLEM, [HONEST, STATIC, WRONG], cfg, progress=progress, on_verdict=on_verdict)
    # each verdict is told once, as soon as it is final, and it is the verdict returned
    assert sorted(i for i, _, _ in told) == [0, 1, 2] and all(vs[i] is v for i, v, _ in told)
    assert told[0][0] == 1  # the static rejection needs no sandbox: told first
    assert all(phases[-1].startswith(("verified", "rejected")) for _, _, phases in told)
    # elapsed_s is each candidate's own: from the batch's start to its verdict
    assert vs[1].elapsed_s < min(vs[0].elapsed_s, vs[2].elapsed_s)
    assert [v.ok for v in vs] == [True, False, False] and vs[2].stage == "correctness", [v.summary() for v in vs]
    assert seen[0] == ["correctness", "verified"]
    assert seen[1] == ["rejected: static"]  # never reached a sandbox
    assert seen[2] == ["correctness", "rejected: correctness"]
    # where the time went: the sandboxed ones say which phases they spent it in, within the batch's time
    for v in (vs[0], vs[2]):
        p = v.phases_s
        assert {"reference", "worker", "lock", "correctness", "import", "first_trial"} <= set(p), p
        assert all(x >= 0 for x in p.values()) and p["import"] + p["first_trial"] <= p["correctness"], p
        assert p["reference"] + p["correctness"] <= v.elapsed_s + 0.01, (p, v.elapsed_s)
        # and inside the sandboxes: the reference's size plan and runs, the candidate's setup, trials and state checks
        assert {"reference_total", "reference_plan", "reference_runs", "reference_save"} <= set(p), p
        assert p["reference_plan"] + p["reference_runs"] + p["reference_save"] <= p["reference_total"] + 0.01, p
        assert p["setup"] + p["trials"] + p["state_checks"] <= p["correctness"], p
        assert not any(k.startswith("ref_") for k in p)  # the names of the baseline's timing phases
    assert vs[1].phases_s == {}  # rejected before any sandbox

    def broken(i: int, phase: str) -> None:
        raise RuntimeError("a client's progress callback failed")

    def broken_verdict(i: int, v) -> None:
        raise RuntimeError("a client's verdict callback failed")

    again = verify_batch(PROBLEM, [HONEST], cfg, progress=broken, on_verdict=broken_verdict)
    assert again[0].ok, again[0].summary()


def test_a_job_goes_only_to_a_warm_worker_and_the_wait_is_its_own_phase(monkeypatch):
    """A worker still starting (torch, Triton, a CUDA context) finishes its warm-up before its job takes the GPU
    lock: inside the lock its start held back every timing phase (up to ~45 s an RL step on an H100). Workers
    started cold (no pool) show it: every job is dispatched to a warm worker, and the wait is `warm_wait`
    (`reference_warm_wait` for the reference), outside `correctness`."""
    from verifier import pool

    cold: list[str] = []
    dispatch = pool.Worker.dispatch

    def checked(self, *a, **kw):
        if not self.warm:
            cold.append(self.kind)
        return dispatch(self, *a, **kw)

    monkeypatch.setattr(pool.Worker, "dispatch", checked)
    vs = verify_batch(PROBLEM, [HONEST, WRONG], VerifyConfig(device="cpu", trials=1, perturb=1, pool=False))
    assert [v.ok for v in vs] == [True, False], [v.summary() for v in vs]
    assert cold == [], cold
    for v in vs:
        assert v.phases_s["warm_wait"] >= 0 and v.phases_s["reference_warm_wait"] >= 0, v.phases_s
