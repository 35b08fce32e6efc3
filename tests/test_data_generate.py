"""The generated corpus: reproducible, covers its families, verified, never a KernelBench copy."""
from collections import Counter

import pytest

from conftest import KERNELBENCH
from training import prompts
from training.data.generate import generate
from training.data.novelty import NEAR_COPY, closest
from verifier import VerifyConfig, verify_batch
from verifier.static_check import check_candidate


def test_reproducible_and_covering():
    a, b = generate(120, seed=3), generate(120, seed=3)
    assert [s.problem for s in a] == [s.problem for s in b] and [s.candidate for s in a] == [s.candidate for s in b]
    assert set(Counter(s.family for s in a)) == {"elementwise", "row", "binary"}
    assert len({s.problem for s in a}) > 100  # varied, not one template


def test_every_candidate_passes_static_and_parses_as_a_response():
    for s in generate(200, seed=0):
        assert check_candidate(s.candidate, s.problem) == [], s.id
        r = prompts.parse_response(s.response)
        assert r.ok and r.code == s.candidate and r.plan == s.plan


def test_samples_verify():
    cfg = VerifyConfig(device="cpu", pool=True, trials=1)
    picked = {}
    for s in generate(60, seed=11):
        picked.setdefault(s.family, []).append(s)
    for fam, ss in picked.items():
        for s in ss[:2]:
            (v,) = verify_batch(s.problem, [s.candidate], cfg)
            assert v.ok, (s.id, v.summary())


@pytest.mark.skipif(not KERNELBENCH.is_dir(), reason="../shared/kernelbench not present")
def test_never_a_kernelbench_copy():
    kb = (KERNELBENCH / "level1" / "19_ReLU.py").read_text()
    assert closest(kb.replace("Simple model", "A model"), KERNELBENCH)[0] >= NEAR_COPY  # the guard works
    worst = max(closest(s.problem, KERNELBENCH)[0] for s in generate(40, seed=0))
    assert worst < NEAR_COPY, worst
