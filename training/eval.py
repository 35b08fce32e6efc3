"""`python -m training.eval (--model CKPT | --endpoint URL [--served-model NAME]) --problems DIR [-n N]
[-k K ...] [--device auto|cuda|cpu] [--out DIR] [--level NAME ...] [--only IDS] [--jobs J]`

KernelBench-style evaluation with the shared pipeline (`training.suggest.run_problem`, one turn): n samples
per problem, verified in parallel, KernelBench's metrics (`training.metrics`) per level. DIR is either a
folder of problem files (its level is `--level` or the folder's name) or a folder of level folders
(`../shared/kernelbench`: level1, level2, level3; `--level` picks some).

In --out: `results.jsonl` (one line per finished problem, appended as it finishes; a rerun with the same
options skips those), `run.json` (the options the results depend on), `summary.json`, `table.md`,
`summary.png`. Exit 0 when every selected problem was evaluated, 1 when some could not be (listed), 2 on
usage errors (bad options, missing folder, model that does not load or answer).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from .metrics import outcome, pass_at_k, summarize


class EvalError(Exception):
    """A usage error: the message says what is wrong and how to fix it."""


@dataclass(frozen=True)
class ProblemFile:
    level: str
    id: str           # the file's stem, e.g. 19_ReLU
    path: Path

    @property
    def key(self) -> str:
        return f"{self.level}/{self.id}"


def _natural(name: str) -> tuple:
    m = re.match(r"(\d+)", name)
    return (int(m.group(1)) if m else 1 << 30, name)


def _py_files(d: Path) -> list[Path]:
    return sorted((p for p in d.glob("*.py") if not p.name.startswith("_")), key=lambda p: _natural(p.stem))


def discover(problems: Path, levels: Sequence[str] = (), only: Sequence[str] = ()) -> list[ProblemFile]:
    """The problem files to evaluate, in a stable order; EvalError when none or when a name does not match."""
    if not problems.exists():
        raise EvalError(f"problems folder not found: {problems}")
    if not problems.is_dir():
        raise EvalError(f"--problems must be a folder of problem files, not a file: {problems}")
    direct = _py_files(problems)
    if direct:
        if len(levels) > 1:
            raise EvalError(f"{problems} holds problem files directly; give at most one --level (its name)")
        found = [ProblemFile(levels[0] if levels else problems.name, p.stem, p) for p in direct]
    else:
        subdirs = {d.name: d for d in sorted(problems.iterdir(), key=lambda d: _natural(d.name))
                   if d.is_dir() and _py_files(d)}
        if not subdirs:
            raise EvalError(f"no problem files (*.py) in {problems} or in its sub-folders")
        unknown = [lv for lv in levels if lv not in subdirs]
        if unknown:
            raise EvalError(f"no level {', '.join(unknown)} in {problems} (there are: {', '.join(subdirs)})")
        found = [ProblemFile(name, p.stem, p) for name, d in subdirs.items() if not levels or name in levels
                 for p in _py_files(d)]
    if only:
        def hit(pf: ProblemFile, want: str) -> bool:
            return want in (pf.id, pf.key) or pf.id.split("_", 1)[0] == want or pf.key.split("_", 1)[0] == want

        missing = [w for w in only if not any(hit(pf, w) for pf in found)]
        if missing:
            raise EvalError(f"--only: no problem matches {', '.join(missing)} (ids are file names without .py, "
                            "their number, or LEVEL/ID)")
        found = [pf for pf in found if any(hit(pf, w) for w in only)]
    return found


class ResultsLog:
    """`results.jsonl`: one JSON line per finished problem, appended and flushed as each finishes.

    A line cut off by a kill is ignored on reading; the last line for a problem wins."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()

    def load(self) -> dict[str, dict]:
        rows: dict[str, dict] = {}
        if not self.path.exists():
            return rows
        for line in self.path.read_text(errors="replace").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a partial last line of an interrupted run
            if isinstance(row, dict) and "key" in row:
                rows[row["key"]] = row
        return rows

    def append(self, row: dict) -> None:
        data = json.dumps(row, default=str, allow_nan=False)
        with self._lock, open(self.path, "a+b") as f:
            f.seek(0, os.SEEK_END)
            if f.tell():  # start on a fresh line even after a partial one
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    f.write(b"\n")
            f.write(data.encode() + b"\n")
            f.flush()
            os.fsync(f.fileno())


RUN_KEYS = ("model", "n", "temperature", "top_p", "max_new_tokens", "seed", "device", "trials")


def check_run_config(out: Path, cfg: dict[str, Any], resuming: bool) -> None:
    """Write `run.json`; when resuming (results.jsonl has rows), first check that it holds the same options."""
    path = out / "run.json"
    mine = {k: cfg[k] for k in RUN_KEYS}
    if resuming and path.exists():
        try:
            old = json.loads(path.read_text())
        except json.JSONDecodeError:
            raise EvalError(f"{path} is not valid JSON; remove it (and results.jsonl) or pick another --out") from None
        diff = [f"{k}: {old.get(k)!r} there, {mine[k]!r} now" for k in RUN_KEYS if old.get(k) != mine[k]]
        if diff:
            raise EvalError(f"{out} holds results of a run with other options ({'; '.join(diff)}); "
                            "pick another --out, or rerun with the same options to resume")
    path.write_text(json.dumps(mine, indent=1) + "\n")


class BatchingGeneration:
    """Wraps an in-process backend for problems evaluated side by side: while one `generate` call runs,
    the requests that arrive wait, and the next call serves all of them as one batch (the model is
    decode-bound: a batch of many problems costs about what one costs). Verification overlaps."""

    def __init__(self, backend, gather_s: float = 0.05):
        self.backend, self.model_id = backend, backend.model_id
        self.gather_s = gather_s
        self._cv = threading.Condition()
        self._queue: list[dict] = []
        self._busy = False

    def generate(self, conversations, cfg):
        slot: dict[str, Any] = {"convs": list(conversations), "cfg": cfg, "out": None, "err": None}
        with self._cv:
            self._queue.append(slot)
            while slot["out"] is None and slot["err"] is None:
                if self._busy:
                    self._cv.wait()
                    continue
                self._busy = True  # this thread leads the next call; let the others' requests arrive
                self._cv.wait(self.gather_s)
                batch = [s for s in self._queue if s["cfg"] == slot["cfg"]]
                for s in batch:
                    self._queue.remove(s)
                self._cv.release()
                try:
                    outs = self.backend.generate([c for s in batch for c in s["convs"]], cfg)
                    i = 0
                    for s in batch:
                        s["out"], i = outs[i:i + len(s["convs"])], i + len(s["convs"])
                except BaseException as e:  # every waiting problem gets the error, no thread waits forever
                    for s in batch:
                        s["err"] = e
                finally:
                    self._cv.acquire()
                    self._busy = False
                    self._cv.notify_all()
        if slot["err"] is not None:
            raise slot["err"]
        return slot["out"]


def _sample(c) -> dict[str, Any]:
    v = c.verdict.to_dict()
    return {"verdict": v, "code": c.code, "response": c.response}


def evaluate_problem(pf: ProblemFile, backend, n: int, gen, vcfg) -> dict[str, Any]:
    """Generate n samples for one problem and verify them (raises ProblemError, BackendError)."""
    from verifier.problem import parse_problem

    from .suggest import rank, run_problem

    src = pf.path.read_text(errors="replace")
    parse_problem(src)  # a problem without Model / get_inputs / get_init_inputs fails before any generation
    t0 = time.monotonic()
    res = run_problem(src, backend, n=n, turns=1, gen=gen, verify_cfg=vcfg)
    if not res.candidates:
        raise EvalError(f"the model returned no completions for {pf.key}")
    best = rank(res.candidates)[0].verdict
    return {"key": pf.key, "level": pf.level, "id": pf.id, "file": str(pf.path),
            "sha256": hashlib.sha256(pf.path.read_bytes()).hexdigest(), "elapsed_s": round(time.monotonic() - t0, 2),
            "best": {"stage": best.stage, "rule": best.reasons[0].rule if best.reasons else None},
            "samples": [_sample(c) for c in res.candidates]}


def _first_rule(v: dict) -> str | None:
    return v["reasons"][0]["rule"] if v.get("reasons") else None


def row_view(row: dict[str, Any], ks: Sequence[int]) -> dict[str, Any]:
    """The report's row of one problem: each sample's verdict stage/rule and metric flags, pass@k, the
    failing layer (that of the sample that got furthest, when none is correct), best speedups."""
    samples = []
    for s in row["samples"]:
        v = s["verdict"]
        o = outcome(v)
        samples.append({"stage": v["stage"], "rule": _first_rule(v), "rules": [r["rule"] for r in v["reasons"]],
                        "message": (v["reasons"][0]["message"][:300] if v.get("reasons") else ""), **o})
    n, c = len(samples), sum(s["correct"] for s in samples)
    out = {"level": row["level"], "id": row["id"], "file": row["file"], "n": n, "correct": c,
           "failing": None if c else row["best"],
           "best_speedup": max((s["speedup"] for s in samples if s["speedup"] is not None), default=None),
           "best_speedup_compile": max((s["speedup_compile"] for s in samples if s["speedup_compile"] is not None),
                                       default=None),
           "elapsed_s": row.get("elapsed_s"), "samples": samples}
    for k in ks:
        out[f"pass@{k}"] = pass_at_k(n, c, k) if n >= k else None
    return out


def build_report(rows: Sequence[dict], errors: Sequence[dict], cfg: dict[str, Any], speed_measured: bool,
                 command: str, elapsed_s: float) -> dict[str, Any]:
    """summary.json's content: the options, the summary per level and over all, one row per problem."""
    ks = cfg["k"]
    views = [row_view(r, ks) for r in rows]
    levels: dict[str, list] = {}
    for v in views:
        levels.setdefault(v["level"], []).append(v["samples"])
    return {"command": command, "config": cfg, "speed_measured": speed_measured, "elapsed_s": round(elapsed_s, 1),
            "all": summarize([v["samples"] for v in views], ks, speed_measured),
            "levels": {lv: summarize(ps, ks, speed_measured) for lv, ps in levels.items()},
            "rows": views, "errors": list(errors)}


def write_outputs(out: Path, report: dict[str, Any]) -> None:
    from .eval_report import chart, markdown

    (out / "summary.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    (out / "table.md").write_text(markdown(report))
    if report["rows"]:
        chart(report, out / "summary.png")


def run(args: argparse.Namespace, command: str) -> int:
    from rich.console import Console

    from verifier import VerifyConfig
    from verifier.problem import ProblemError

    from .backends import BackendError, GenerationConfig, load_backend

    con = Console(stderr=True, soft_wrap=True)
    t0 = time.monotonic()
    if args.n < 1:
        raise EvalError("-n must be at least 1")
    ks = sorted(set(args.k or [1]))
    if ks[0] < 1 or ks[-1] > args.n:
        raise EvalError(f"every -k must be between 1 and -n ({args.n}); got {ks}")
    if args.jobs < 1:
        raise EvalError("--jobs must be at least 1")
    if bool(args.model) == bool(args.endpoint):
        raise EvalError("give exactly one of --model CKPT or --endpoint URL")
    levels = [lv for arg in args.level or [] for lv in arg.split(",") if lv]
    only = [i for arg in args.only or [] for i in arg.split(",") if i]
    problems = discover(Path(args.problems), levels, only)
    try:
        vcfg = VerifyConfig(device=args.device, trials=args.trials).resolved()
    except ValueError as e:
        raise EvalError(str(e)) from None
    model = f"{args.endpoint} ({args.served_model or 'default'})" if args.endpoint else str(Path(args.model).resolve())
    cfg = {"model": model, "n": args.n, "temperature": args.temperature, "top_p": args.top_p,
           "max_new_tokens": args.max_new_tokens, "seed": args.seed, "device": vcfg.device, "trials": vcfg.trials,
           "k": ks, "problems": str(args.problems), "levels": levels or None, "only": only or None}
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EvalError(f"cannot create --out {out}: {e}") from None
    log = ResultsLog(out / "results.jsonl")
    done = log.load()
    check_run_config(out, cfg, resuming=bool(done))
    sha = {pf.key: hashlib.sha256(pf.path.read_bytes()).hexdigest() for pf in problems}
    todo = [pf for pf in problems if done.get(pf.key, {}).get("sha256") != sha[pf.key]]
    con.print(f"{len(problems)} problems, {len(problems) - len(todo)} already in {log.path}, {len(todo)} to run; "
              f"n={args.n}, verification on {vcfg.device}")
    errors: list[dict] = []
    fatal: str | None = None
    if todo:
        try:
            backend = load_backend(args.model, args.backend, args.endpoint, args.served_model, args.device)
        except BackendError as e:
            raise EvalError(str(e)) from None
        if args.jobs > 1 and not args.endpoint:
            backend = BatchingGeneration(backend)
        gen = GenerationConfig(n=args.n, temperature=args.temperature, top_p=args.top_p,
                               max_new_tokens=args.max_new_tokens, seed=args.seed)

        def one(pf: ProblemFile) -> dict:
            return evaluate_problem(pf, backend, args.n, GenerationConfig(**vars(gen)), vcfg)

        pool = ThreadPoolExecutor(max_workers=args.jobs)
        futs = {pool.submit(one, pf): pf for pf in todo}
        finished = 0
        try:
            for f in as_completed(futs):
                pf = futs[f]
                finished += 1
                try:
                    row = f.result()
                except (ProblemError, SyntaxError, UnicodeDecodeError) as e:
                    errors.append({"level": pf.level, "id": pf.id, "file": str(pf.path),
                                   "error": f"the problem does not load: {e}"})
                    con.print(f"[{finished}/{len(todo)}] {pf.key}: [red]problem does not load[/red]: {e}")
                    continue
                except (BackendError, EvalError) as e:
                    fatal = str(e)
                    break
                log.append(row)
                done[pf.key] = row
                c = sum(s["verdict"]["ok"] for s in row["samples"])
                con.print(f"[{finished}/{len(todo)}] {pf.key}: {c}/{len(row['samples'])} correct "
                          f"(furthest: {row['best']['stage']}) {row['elapsed_s']:.1f}s")
        except KeyboardInterrupt:
            fatal = "interrupted"
        finally:
            for f in futs:
                f.cancel()
            pool.shutdown(wait=fatal is None, cancel_futures=True)
    rows = [done[pf.key] for pf in problems if pf.key in done and done[pf.key].get("sha256") == sha[pf.key]]
    report = build_report(rows, errors, cfg, vcfg.device == "cuda" and vcfg.measure, command,
                          time.monotonic() - t0)
    write_outputs(out, report)
    if fatal:
        con.print(f"[red]error:[/red] {fatal}\n{len(rows)} problems are saved in {log.path}; "
                  "rerun the same command to resume")
        return 2
    s = report["all"]
    con.print(f"wrote {out}/summary.json, table.md" + (", summary.png" if rows else "") +
              f"; correct {s['correct'] if s['correct'] is not None else '—'}, "
              + ", ".join(f"pass@{k} {s[f'pass@{k}']:.3f}" for k in ks if s[f"pass@{k}"] is not None)
              + ("" if report["speed_measured"] else "; speed not measured (CPU)"))
    sys.stdout.write((out / "table.md").read_text())
    return 1 if errors else 0


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m training.eval", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="Hugging Face model or LoRA adapter directory (or a training run directory)")
    ap.add_argument("--backend", default="auto", choices=["auto", "transformers", "vllm"])
    ap.add_argument("--endpoint", help="OpenAI-compatible server URL (key from OPENAI_API_KEY)")
    ap.add_argument("--served-model", help="model name on the endpoint")
    ap.add_argument("--problems", required=True, help="folder of KernelBench-format problems, or of level folders")
    ap.add_argument("--level", action="append", help="level name (folder) to evaluate; repeatable or a,b")
    ap.add_argument("--only", action="append", help="problem ids (file stem, its number, or LEVEL/ID); a,b")
    ap.add_argument("-n", type=int, default=4, help="samples per problem")
    ap.add_argument("-k", type=int, action="append", help="pass@k to report (repeatable; default 1)")
    ap.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
    ap.add_argument("--trials", type=int, default=None, help="correctness trials per sample (verifier default)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="problems in flight at once (each verifies its n in parallel; their generation is batched)")
    ap.add_argument("--temperature", type=float, default=0.8)
    ap.add_argument("--top-p", type=float, default=0.95)
    ap.add_argument("--max-new-tokens", type=int, default=2048)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", default="eval_out", help="output folder (resumable)")
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parser().parse_args(argv)
    command = "python -m training.eval " + " ".join(shlex.quote(a) for a in argv)
    try:
        return run(args, command)
    except EvalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
