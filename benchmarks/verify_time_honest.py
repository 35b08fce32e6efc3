"""CPU verification time of a few honest corpus candidates, one at a time (best of 2), with the verifier of the tree
on PYTHONPATH: run it on two checkouts to see what a verifier change costs.

    PYTHONPATH=CHECKOUT python benchmarks/verify_time_honest.py LABEL
"""
from __future__ import annotations

import pathlib
import sys
import time

from verifier import VerifyConfig, verify

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "tests" / "corpus"
CASES = [("relu", "relu__autotuned"), ("matmul", "matmul__triton_tutorial_autotune"),
         ("row_softmax", "row_softmax__one_program_per_row"), ("layernorm", "layernorm__fused_row"),
         ("matmul", "matmul__split_k_scratch"), ("batchnorm_train", "batchnorm_train__running_stats"),
         ("linear_relu", "linear_relu__fused_epilogue")]


def main() -> None:
    label = sys.argv[1] if len(sys.argv) > 1 else "this tree"
    print(f"| verifier | candidate | verified | trials | seconds (best of 2) |\n|---|---|---|---|---|")
    for prob, cand in CASES:
        src = (CORPUS / "problems" / f"{prob}.py").read_text()
        code = (CORPUS / "honest" / f"{cand}.py").read_text()
        best, v = float("inf"), None
        for _ in range(2):
            t = time.perf_counter()
            v = verify(src, code, VerifyConfig(device="cpu"))
            best = min(best, time.perf_counter() - t)
        print(f"| {label} | {cand} | {v.ok} | {v.trials['passed']}/{v.trials['run']} | {best:.1f} |", flush=True)


if __name__ == "__main__":
    main()
