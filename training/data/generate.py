"""A reproducible generator of (problem, plan, Triton candidate) samples, in KernelBook's spirit.

Teacher: a compact generator of clean Triton from a small op graph (not TorchInductor output):
every candidate is readable, uses no library call for its core op, and its plan is true to its
code by construction (the same op graph writes both). Problems vary in coding style the way
people write modules (torch.* vs F.* vs tensor methods vs nn submodules, names, docstrings,
type hints, shapes and dtypes). The families live in `training/data/families/`.

    python -m training.data.generate --n 1000 --seed 0 --out data/corpus.jsonl [--parallel 2] [--resume]

writes only samples that pass the verifier (CPU: the Triton interpreter) and are no near-copy of a
KernelBench problem; `--no-verify` writes the raw generator output.
"""
from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from typing import Callable, Iterator

from .families.activations import activation
from .families.basic import binary, binary_scalar, elementwise, row_op
from .families.common import Sample
from .families.losses import loss
from .families.matmul import bmm, linear_act_scale, matmul, matvec
from .families.norms import batch_norm, frobenius_norm, group_norm, norm, norm_act
from .families.norm_dims import channel_norm, long_row_norm
from .families.reductions import argreduce, dim_reduce

__all__ = ["FAMILIES", "KERNELBENCH_L1_MATCHES", "MAKERS", "Sample", "TABLES", "generate"]

Maker = Callable[[random.Random, int], Sample]
# (maker, family, weight): a maker draws one sample of its family.
MAKERS_V1: list[tuple[Maker, str, int]] = [
    (elementwise, "elementwise", 4), (binary, "binary", 1), (row_op, "row", 2),
    (norm, "norm", 3), (matmul, "matmul", 3), (bmm, "matmul", 1), (matvec, "matmul", 1),
    (argreduce, "argreduce", 1), (dim_reduce, "dim_reduce", 2),
    (linear_act_scale, "fused", 2), (norm_act, "fused", 1), (loss, "loss", 2),
]
# Makers added after data/corpus.jsonl was built (2026-12-03) draw from a second random stream that
# supplies every V2_EVERY-th sample, so the first stream, and with it every sample of the committed
# corpora (same id, same text), is unchanged: `--resume` on data/corpus.jsonl keeps its lines and
# verifies only what is new. Their ids have their own prefixes (bnorm-, gnorm-, frob-, bins-).
MAKERS_V2: list[tuple[Maker, str, int]] = [
    (batch_norm, "norm", 2), (group_norm, "norm", 2), (frobenius_norm, "norm", 1), (binary_scalar, "binary", 2),
]
V2_EVERY = 5
MAKERS: list[tuple[Maker, str, int]] = MAKERS_V1 + MAKERS_V2
# Tables drawn only on request (`generate(..., table=...)`, `--table`), each from its own random stream, written to
# a corpus file of its own: "single-ops" is one activation per module in every spelling (families/activations.py).
# "norm-dims" is norms over the channel dim and over long or multi-dim rows, with loop kernels (families/norm_dims.py).
TABLES: dict[str, list[tuple[Maker, str, int]]] = {"single-ops": [(activation, "elementwise", 1)],
                                                   "norm-dims": [(channel_norm, "norm", 1), (long_row_norm, "norm", 1)]}
FAMILIES: tuple[str, ...] = ("elementwise", "binary", "row", "norm", "matmul", "argreduce", "dim_reduce", "fused",
                             "loss")

# KernelBench level-1 problems (file stems in level1/) whose op a family covers (similar op, never
# the same source: the novelty guard keeps every generated problem below NEAR_COPY of each file).
KERNELBENCH_L1_MATCHES: dict[str, tuple[str, ...]] = {
    "elementwise": ("19_ReLU", "20_LeakyReLU", "21_Sigmoid", "22_Tanh", "25_Swish", "26_GELU_", "28_HardSigmoid",
                    "29_Softplus", "30_Softsign", "32_HardTanh"),
    "binary": (),
    "row": ("23_Softmax", "24_LogSoftmax"),
    "norm": ("33_BatchNorm", "35_GroupNorm_", "36_RMSNorm_", "37_FrobeniusNorm_", "38_L1Norm_", "39_L2Norm_",
             "40_LayerNorm"),
    "matmul": ("1_Square_matrix_multiplication_", "2_Standard_matrix_multiplication_", "3_Batched_matrix_multiplication",
               "4_Matrix_vector_multiplication_", "6_Matmul_with_large_K_dimension_",
               "7_Matmul_with_small_K_dimension_", "8_Matmul_with_irregular_shapes_",
               "9_Tall_skinny_matrix_multiplication_", "16_Matmul_with_transposed_A", "17_Matmul_with_transposed_B"),
    "argreduce": ("51_Argmax_over_a_dimension", "52_Argmin_over_a_dimension"),
    "dim_reduce": ("47_Sum_reduction_over_a_dimension", "48_Mean_reduction_over_a_dimension",
                   "49_Max_reduction_over_a_dimension", "53_Min_reduction_over_a_dimension"),
    "fused": (),
    "loss": ("94_MSELoss", "96_HuberLoss", "100_HingeLoss"),
}


def generate(n: int, seed: int = 0, families: tuple[str, ...] | None = None, table: str = "main") -> list[Sample]:
    """`n` distinct samples, the same for the same seed (a longer run extends a shorter one's prefix).

    `families` restricts the draw to those families (default: all). `table` "main" draws from the two streams
    the committed corpora were built from; any other name of TABLES draws from that table alone."""
    unknown = set(families or ()) - set(FAMILIES)
    if unknown:
        raise ValueError(f"unknown families {sorted(unknown)}; known: {', '.join(FAMILIES)}")
    if table != "main" and table not in TABLES:
        raise ValueError(f"unknown table {table!r}; known: main, {', '.join(TABLES)}")
    def stream(table: list[tuple[Maker, str, int]], rng: random.Random) -> Iterator[Sample]:
        makers = [m for m, fam, w in table if families is None or fam in families for _ in range(w)]
        seen: set[str] = set()
        for i in range(50 * n + 100) if makers else ():
            s = rng.choice(makers)(rng, i)
            if s.problem not in seen:
                seen.add(s.problem)
                yield s

    if table != "main":
        return list(itertools.islice(stream(TABLES[table], random.Random(f"{table}-{seed}")), n))
    first, second = stream(MAKERS_V1, random.Random(seed)), stream(MAKERS_V2, random.Random(f"v2-{seed}"))
    out: list[Sample] = []
    while len(out) < n:
        order = (second, first) if len(out) % V2_EVERY == V2_EVERY - 1 else (first, second)
        s = next(order[0], None) or next(order[1], None)
        if s is None:
            break
        out.append(s)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.data.generate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200, help="samples to generate (before verification)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True, help="JSONL file to write")
    ap.add_argument("--families", help=f"comma-separated subset of {','.join(FAMILIES)}")
    ap.add_argument("--table", default="main", choices=["main", *TABLES],
                    help="main: the committed corpora's streams; single-ops: one activation per module, every "
                         "spelling (its own corpus file, e.g. data/corpus_single_ops.jsonl)")
    ap.add_argument("--no-verify", action="store_true", help="write the raw samples, unverified")
    ap.add_argument("--parallel", type=int, default=2, help="samples verified at once (default 2)")
    ap.add_argument("--resume", action="store_true", help="keep samples already in --out, verify the rest")
    ap.add_argument("--refresh", action="store_true",
                    help="only the samples already in --out: keep the unchanged ones, verify again those the "
                         "generator now writes differently (after a template change), add none")
    ap.add_argument("--kernelbench", help="KernelBench root for the novelty guard (default: found next to the repo)")
    args = ap.parse_args(argv)
    if args.n < 1 or args.parallel < 1:
        ap.error("--n and --parallel must be at least 1")
    fams = tuple(f.strip() for f in args.families.split(",")) if args.families else None
    try:
        samples = generate(args.n, args.seed, fams, args.table)
    except ValueError as e:
        ap.error(str(e))
    from .build import build_corpus

    if args.refresh:
        try:
            have = {json.loads(x)["id"] for x in open(args.out) if x.strip()}
        except (OSError, ValueError, KeyError) as e:
            print(f"error: --refresh needs a corpus to refresh: {e}", file=sys.stderr)
            return 2
        samples = [s for s in samples if s.id in have]
    try:
        report = build_corpus(samples, args.out, verify=not args.no_verify, parallel=args.parallel,
                              resume=args.resume or args.refresh, kernelbench=args.kernelbench, log=sys.stderr)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(report.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
