"""training.metrics: the pass@k estimator against brute-force enumeration, and KernelBench's flags."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from training.metrics import geomean, outcome, pass_at_k, summarize


def brute_pass_at_k(n: int, c: int, k: int) -> Fraction:
    """The fraction of all k-subsets of n samples (c of them correct) that hold a correct one."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return Fraction(sum(any(samples[i] for i in s) for s in subsets), len(subsets))


@pytest.mark.parametrize("n", range(1, 11))
def test_pass_at_k_equals_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(float(brute_pass_at_k(n, c, k)), abs=1e-12), (n, c, k)


def test_pass_at_k_closed_form_large_n():
    n, c, k = 200, 7, 10
    assert pass_at_k(n, c, k) == pytest.approx(1 - math.comb(n - c, k) / math.comb(n, k), rel=1e-12)
    assert pass_at_k(n, c, 1) == pytest.approx(c / n)


def test_pass_at_k_rejects_bad_arguments():
    with pytest.raises(ValueError, match="at least 5 samples"):
        pass_at_k(3, 1, 5)
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 0)


def test_geomean():
    assert geomean([]) is None
    assert geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert geomean([0.5, 2.0]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        geomean([1.0, 0.0])


def v(stage: str, rule: str | None = None, ok: bool = False, speedup=None, speedup_compile=None) -> dict:
    return {"ok": ok, "stage": stage, "reasons": [{"stage": stage, "rule": rule, "message": ""}] if rule else [],
            "speedup": speedup, "speedup_compile": speedup_compile}


@pytest.mark.parametrize("verdict,valid,compiled,correct", [
    (v("parse", "no-fence"), False, False, False),
    (v("parse", "missing-modelnew"), False, False, False),
    (v("static", "no-triton-kernel"), False, False, False),
    (v("static", "torch-compute"), True, False, False),        # has a kernel, rejected before running
    (v("sandbox", "forward-error"), True, False, False),
    (v("launch", "no-launch"), True, False, False),
    (v("correctness", "output-mismatch"), True, True, False),
    (v("performance", "timing-failed"), True, True, False),
    (v("done", ok=True), True, True, True),
])
def test_outcome_stages(verdict, valid, compiled, correct):
    o = outcome(verdict)
    assert (o["valid"], o["compiled"], o["correct"]) == (valid, compiled, correct)


def test_outcome_speed_flags():
    assert outcome(v("done", ok=True))["fast1"] is None                       # CPU: correct, not timed
    o = outcome(v("done", ok=True, speedup=1.5, speedup_compile=0.8))
    assert (o["fast1"], o["fast2"], o["speedup"], o["speedup_compile"]) == (True, False, 1.5, 0.8)
    o = outcome(v("done", ok=True, speedup=2.0))
    assert (o["fast1"], o["fast2"]) == (True, True)
    o = outcome(v("correctness", "output-mismatch", speedup=9.0))             # never counts when incorrect
    assert (o["fast1"], o["speedup"]) == (False, None)


def test_summarize_gpu_numbers():
    p1 = [outcome(v("done", ok=True, speedup=4.0, speedup_compile=2.0)), outcome(v("static", "torch-compute"))]
    p2 = [outcome(v("done", ok=True, speedup=1.0, speedup_compile=0.5)), outcome(v("done", ok=True, speedup=0.25,
                                                                                    speedup_compile=0.125))]
    s = summarize([p1, p2], ks=[1, 2], speed_measured=True)
    assert s["problems"] == 2 and s["samples"] == 4
    assert s["valid"] == 1.0 and s["compiled"] == 0.75 and s["correct"] == 0.75
    assert s["fast1"] == 0.25 and s["fast2"] == 0.25
    assert s["geomean_speedup_eager"] == pytest.approx(1.0)     # (4 * 1 * 0.25) ** (1/3)
    assert s["geomean_speedup_compile"] == pytest.approx(0.5)   # (2 * 0.5 * 0.125) ** (1/3)
    assert s["pass@1"] == pytest.approx((0.5 + 1.0) / 2) and s["pass@2"] == 1.0


def test_summarize_cpu_has_no_speed_numbers():
    p = [outcome(v("done", ok=True)), outcome(v("correctness", "output-mismatch"))]
    s = summarize([p], ks=[1, 2, 5], speed_measured=False)
    assert s["correct"] == 0.5 and s["pass@1"] == 0.5 and s["pass@2"] == 1.0
    assert s["fast1"] is s["fast2"] is s["geomean_speedup_eager"] is s["geomean_speedup_compile"] is None
    assert s["pass@5"] is None and s["pass@5_problems"] == 0
