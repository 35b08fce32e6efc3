"""TritonRL verifier: multi-layer, sandboxed verification of Triton candidates.

Depends on nothing else in the repository. `verify(problem_src, candidate_src) -> Verdict`.
"""
from .verdict import INCONCLUSIVE_RULES, Finding, Verdict, STAGES

__all__ = ["Finding", "Verdict", "STAGES", "INCONCLUSIVE_RULES", "verify", "verify_batch", "VerifyConfig", "ReferenceRun"]


def __getattr__(name):  # lazy: importing the package must not import torch
    if name in ("verify", "verify_batch", "VerifyConfig", "ReferenceRun"):
        from . import runner

        return getattr(runner, name)
    raise AttributeError(name)
