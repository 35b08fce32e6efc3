"""KernelBench's metrics, from verifier verdicts (as dicts): the math only, no I/O.

Per sample (`outcome`): valid (parsed, defines ModelNew and a @triton.jit kernel), compiled (ran in the
sandbox and launched a kernel in every forward call), correct (every layer passed), fast1 / fast2 (correct
and faster than eager / at least 2x), speedups against eager and against torch.compile (None on CPU).
Per set of problems (`summarize`): rates over all samples, geometric-mean speedups over the correct
samples that were timed, and pass@k with the unbiased estimator of Chen et al. (2021).
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

# A verdict's `stage` is the first layer that failed ("done" when all passed). Reaching a stage means
# passing every layer before it.
_ORDER = ("parse", "static", "sandbox", "launch", "correctness", "performance", "done")
_RANK = {s: i for i, s in enumerate(_ORDER)}
RATE_KEYS = ("valid", "compiled", "correct", "fast1", "fast2")


def outcome(verdict: dict[str, Any]) -> dict[str, Any]:
    """The metric flags of one sample from its verdict dict (`Verdict.to_dict()`).

    fast1/fast2 are None when the sample is correct but was not timed (CPU), False when incorrect."""
    stage = verdict.get("stage", "parse")
    rank = _RANK.get(stage, 0)
    rules = [r.get("rule") for r in verdict.get("reasons", [])]
    valid = rank > _RANK["static"] or (stage == "static" and "no-triton-kernel" not in rules)
    compiled = rank >= _RANK["correctness"]
    correct = bool(verdict.get("ok"))
    speedup = verdict.get("speedup") if correct else None
    speedup_compile = verdict.get("speedup_compile") if correct else None
    fast1 = fast2 = False
    if correct:
        fast1 = None if speedup is None else speedup > 1.0
        fast2 = None if speedup is None else speedup >= 2.0
    return {"valid": valid, "compiled": compiled, "correct": correct, "fast1": fast1, "fast2": fast2,
            "speedup": speedup, "speedup_compile": speedup_compile}


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem with n samples of which c are correct: 1 - C(n-c, k) / C(n, k).

    Computed as the product form 1 - prod_{i=n-c+1}^{n} (1 - k/i), which is exact in rational terms
    and stable for large n (Chen et al. 2021)."""
    if not (0 <= c <= n) or k < 1:
        raise ValueError(f"need 0 <= c <= n and k >= 1 (n={n}, c={c}, k={k})")
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def geomean(xs: Iterable[float]) -> float | None:
    """Geometric mean of positive numbers; None for none."""
    xs = [float(x) for x in xs]
    if not xs:
        return None
    if any(x <= 0 or not math.isfinite(x) for x in xs):
        raise ValueError(f"geometric mean needs positive finite numbers, got {xs}")
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def summarize(problems: Sequence[Sequence[dict[str, Any]]], ks: Sequence[int], speed_measured: bool) -> dict[str, Any]:
    """Metrics over problems, each a list of per-sample `outcome` dicts.

    Rates are over all samples. `speed_measured` is False on CPU (the interpreter times nothing):
    fast1, fast2 and the speedups are then None. The geometric means are over the correct samples
    that have a speedup. pass@k is the mean over problems with at least k samples (`pass@k_problems`
    says how many)."""
    samples = [s for p in problems for s in p]
    out: dict[str, Any] = {"problems": len(problems), "samples": len(samples), "speed_measured": speed_measured}
    for key in RATE_KEYS:
        measured = speed_measured or key not in ("fast1", "fast2")
        out[key] = sum(1 for s in samples if s[key]) / len(samples) if samples and measured else None
    timed = [s for s in samples if s["correct"] and s["speedup"] is not None] if speed_measured else []
    out["geomean_speedup_eager"] = geomean(s["speedup"] for s in timed)
    out["geomean_speedup_compile"] = geomean(s["speedup_compile"] for s in timed
                                             if s["speedup_compile"] is not None)
    for k in ks:
        vals = [pass_at_k(len(p), sum(1 for s in p if s["correct"]), k) for p in problems if len(p) >= k]
        out[f"pass@{k}"] = sum(vals) / len(vals) if vals else None
        out[f"pass@{k}_problems"] = len(vals)
    return out
