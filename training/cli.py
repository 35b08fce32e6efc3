"""`tritonrl suggest PATH::CLASS [--model CKPT | --endpoint URL --served-model NAME] [-n N] [--device …]
[--json] [--out FILE] [--turns T]`

Exit 0 when a verified kernel was found, 1 when none, 2 on usage errors.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _suggest(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from verifier import VerifyConfig

    from .backends import BackendError, GenerationConfig, load_backend
    from .extract import ExtractError, NeedsInputs, extract_problem
    from .suggest import run_problem

    con = Console(stderr=True)

    def usage(msg: str, extra: str = "") -> int:
        if args.json:
            print(json.dumps({"ok": False, "error": msg, "stub": extra or None}))
        else:
            con.print(f"[red]error:[/red] {msg}")
            if extra:
                print(extra)
        return 2

    path, sep, cls = args.target.rpartition("::")
    if not sep or not path or not cls:
        return usage("target must be PATH::CLASS, e.g. model.py::RMSNorm")
    p = Path(path)
    if not p.is_file():
        return usage(f"file not found: {path}")
    source = p.read_text(errors="replace")
    # the module first: a file that does not parse or a module without inputs is told at once, not after the
    # model has loaded
    try:
        problem = extract_problem(source, cls)
    except NeedsInputs as e:
        return usage(str(e), e.stub)
    except (ExtractError, ValueError) as e:
        return usage(str(e))
    try:
        backend = load_backend(args.model, args.backend, args.endpoint, args.served_model, args.device)
    except BackendError as e:
        return usage(str(e))
    gen = GenerationConfig(n=args.n, temperature=args.temperature, top_p=args.top_p,
                           max_new_tokens=args.max_new_tokens, seed=args.seed)
    vcfg = VerifyConfig(device=args.device, trials=args.trials)
    status = con.status("starting")

    def progress(event: str, info: dict) -> None:
        msg = {"generating": f"turn {info.get('turn')}: generating {info.get('n')} candidates",
               "verifying": f"turn {info.get('turn')}: verifying {info.get('n')} candidates "
                            f"({info.get('parse_failed', 0)} malformed)",
               "turn-done": f"turn {info.get('turn')}: {info.get('verified')} verified"}.get(event, event)
        status.update(msg)
        if event == "turn-done" and not args.json:
            con.log(msg)

    try:
        with status:
            res = run_problem(problem, backend, n=args.n, turns=args.turns, gen=gen, verify_cfg=vcfg,
                              progress=progress)
    except (BackendError, ValueError) as e:
        return usage(str(e))
    best = res.best
    if args.out and best:
        Path(args.out).write_text(best.code)
    if args.json:
        print(json.dumps({"ok": best is not None, "model": res.model_id, "elapsed_s": round(res.elapsed_s, 2),
                          "best": best.code if best else None,
                          "candidates": [{"turn": c.turn, "label": c.label, "verdict": c.verdict.to_dict(),
                                          "code": c.code} for c in res.candidates]}, default=str))
    elif best:
        con.print(f"[green]verified kernel[/green] for {cls}: {best.label} "
                  f"({best.verdict.trials['passed']}/{best.verdict.trials['run']} trials)")
        print(best.code)
    else:
        t = Table(title=f"no verified kernel for {cls} ({len(res.candidates)} candidates)")
        for col in ("turn", "failed at", "why"):
            t.add_column(col)
        for c in res.candidates:
            r = c.verdict.reasons[0] if c.verdict.reasons else None
            t.add_row(str(c.turn), f"{c.verdict.stage}/{r.rule if r else '?'}", (r.message if r else "")[:100])
        con.print(t)
    return 0 if best else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tritonrl")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("suggest", help="generate and verify Triton kernels for a module")
    s.add_argument("target", help="PATH::CLASS")
    s.add_argument("--model", help="Hugging Face model or LoRA adapter directory")
    s.add_argument("--backend", default="auto", choices=["auto", "transformers", "vllm"])
    s.add_argument("--endpoint", help="OpenAI-compatible server URL (key from OPENAI_API_KEY)")
    s.add_argument("--served-model", help="model name on the endpoint")
    s.add_argument("-n", type=int, default=4)
    s.add_argument("--turns", type=int, default=2)
    s.add_argument("--temperature", type=float, default=0.8)
    s.add_argument("--top-p", type=float, default=0.95)
    s.add_argument("--max-new-tokens", type=int, default=2048)
    s.add_argument("--seed", type=int, default=None)
    s.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
    s.add_argument("--trials", type=int, default=None)
    s.add_argument("--json", action="store_true")
    s.add_argument("--out")
    args = ap.parse_args(argv)
    return _suggest(args)


if __name__ == "__main__":
    sys.exit(main())
