"""verify_batch's per-candidate progress: each candidate's phases in order, ending in its verdict;
a failing callback changes nothing."""
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
    vs = verify_batch(PROBLEM, [HONEST, STATIC, WRONG], cfg, progress=progress)
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
    assert vs[1].phases_s == {}  # rejected before any sandbox

    def broken(i: int, phase: str) -> None:
        raise RuntimeError("a client's progress callback failed")

    again = verify_batch(PROBLEM, [HONEST], cfg, progress=broken)
    assert again[0].ok, again[0].summary()
