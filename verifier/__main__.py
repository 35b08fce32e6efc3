"""`python -m verifier PROBLEM.py CANDIDATE.py [--device auto|cuda|cpu] [--trials N] [--timeout S] [--json]`

Exit codes: 0 verified, 1 rejected, 2 usage error (missing file, problem that does not load).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verifier", description="Verify a Triton candidate (ModelNew) "
                                 "against a KernelBench-format problem (Model, get_inputs, get_init_inputs).")
    ap.add_argument("problem", help="reference problem file")
    ap.add_argument("candidate", help="candidate file defining ModelNew")
    ap.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
    ap.add_argument("--trials", type=int, default=None, help="trials at the base shapes (default 3 CPU, 2 GPU)")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per phase (default 90 CPU, 180 GPU)")
    ap.add_argument("--memory-gib", type=float, default=None, help="host memory limit of a sandbox")
    ap.add_argument("--no-perf", action="store_true", help="GPU: skip the performance layer")
    ap.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = ap.parse_args(argv)

    def usage(msg: str) -> int:
        if args.json:
            print(json.dumps({"ok": False, "stage": "usage", "error": msg}))
        else:
            print(f"error: {msg}", file=sys.stderr)
        return 2

    paths = {}
    for role in ("problem", "candidate"):
        p = Path(getattr(args, role))
        if not p.is_file():
            return usage(f"{role} file not found: {p}")
        try:
            paths[role] = p.read_text()
        except (OSError, UnicodeDecodeError) as e:
            return usage(f"cannot read {role} file {p}: {e}")
    from .problem import ProblemError
    from .runner import VerifyConfig, verify

    cfg = VerifyConfig(device=args.device, trials=args.trials, timeout_s=args.timeout, measure=not args.no_perf,
                       memory_bytes=int(args.memory_gib * (1 << 30)) if args.memory_gib else None)
    try:
        v = verify(paths["problem"], paths["candidate"], cfg)
    except (ProblemError, ValueError) as e:
        return usage(str(e))
    if args.json:
        print(v.to_json())
    else:
        print(v.summary())
        if not v.ok and v.log_tail:
            print("  --- candidate traceback (tail) ---")
            print("  " + "\n  ".join(v.log_tail.strip().splitlines()[-12:]))
    return 0 if v.ok else 1


if __name__ == "__main__":
    sys.exit(main())
