"""Time from the language server's "generate" command to the first verified suggestion.

    python benchmarks/lsp_suggest_latency.py [--model CKPT] [--device auto|cuda|cpu] [-n N]
        [--modules relu,row_softmax,...] [--turns T] [--trials T] [--out FILE.md]

The real server (`python -m lsp_server --stdio`, `--model CKPT` passed through; without --model it
serves its embedded default, training/default_model/) and pytest-lsp's client, over stdio, with the
helpers the LSP tests use (tests/lsp_client.py). The modules are five level-1-style problems in
benchmarks/lsp_latency_modules/ (KernelBench format: `class Model`, `get_inputs`, `get_init_inputs`):
ReLU, row softmax, RMS norm, argmax over a dim, sum over a dim. One server for all of them, one job at
a time, in that order. The server's warm start (setting warmStart, default on) loads the model and, on a
GPU, starts the verifier's sandboxes when it starts: the benchmark first waits until that is over, as a
user would open the editor some seconds before asking, and reports the server's start-to-ready time
apart; with --no-warm-start the first job pays for loading the model (its own column). Settings go
to the server as initializationOptions (device, n, turns, trials, max_new_tokens, a throw-away
feedback store), as in the tests.

For each module: open it, ask for code actions at `class Model`, execute the "Generate Triton kernel"
command as offered, and time, from sending the command, in the client:

* offered: the first verified suggestion is available, i.e. the server says "a verified Triton kernel
  for X is ready" (while other candidates still verify) or "N verified Triton kernel(s)" (at the job's
  end) and the code action "Apply verified Triton kernel" is there (checked). The server offers each
  candidate as soon as it verifies (since 2026-12-05; before, when the job's pipeline returned);
* verifier: the progress report "verifying candidate i of n: verified" (the earliest sign, before
  the other candidates of that turn are done; not yet something the user can apply);
* job: the work-done progress ends.

Also from the progress reports: model load (the first job only; 0 once loaded) and the time spent
generating (all turns), the rest of a job being mostly verification.

A module where no candidate verifies is reported as "none verified", its time counted as the job's,
never dropped. Candidates and failing stages come from the server's per-candidate log messages.
p50/p90 are over the "offered" column. Goal (the issue): p50 <= 10 s on an H200 with the default model.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from lsprotocol import types  # noqa: E402

from lsp_client import actions_at, execute, line_of, lsp, open_doc  # noqa: E402
from lsp_code_actions import pct  # noqa: E402  (the nearest-rank percentile of the other LSP benchmark)

# the server's message when a verified suggestion is offered: while others verify, or at the job's end
OFFERED = re.compile(r"verified Triton kernel\(s\) for|a verified Triton kernel for \S+ is ready")
from machine import machine  # noqa: E402

MODULES_DIR = ROOT / "benchmarks" / "lsp_latency_modules"
MODULES = ["relu", "row_softmax", "rms_norm", "argmax_dim", "sum_dim"]
CLASS = "Model"
GOAL_S = 10.0
POLL_S = 0.01


def resolved_device(device: str) -> str:
    if device != "auto":
        return device
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except Exception:  # noqa: BLE001
        return "cpu"


async def run_one(client, name: str, timeout: float) -> dict:
    path = MODULES_DIR / f"{name}.py"
    text = path.read_text()
    uri = path.as_uri()
    open_doc(client, uri, text)
    acts = await actions_at(client, uri, line_of(text, f"class {CLASS}"))
    (gen,) = [a for a in acts if a.command is not None and a.command.command == "tritonrl.generate"]
    tokens0, msgs0, logs0 = set(client.progress_reports), len(client.messages), len(client.log_messages)

    t0 = time.perf_counter()
    started = await execute(client, gen.command)
    if not (started or {}).get("started"):
        raise RuntimeError(f"{name}: the server did not start a job: {started}")
    token, seen, at = None, 0, {}       # at: what -> seconds after sending the command
    offered_msg = None
    gen_s, gen_from = 0.0, None      # seconds spent generating (all turns): "generating" to "verifying"
    while True:
        now = time.perf_counter() - t0
        if now > timeout:
            await execute(client, types.Command(title="c", command="tritonrl.cancel", arguments=[uri, CLASS]))
            raise RuntimeError(f"{name}: the job did not end in {timeout:.0f} s")
        if token is None:
            token = next((t for t, vs in client.progress_reports.items() if t not in tokens0 and vs
                          and vs[0].kind == "begin" and CLASS in (vs[0].title or "")), None)
        if token is not None:
            values = client.progress_reports[token]
            for v in values[seen:]:
                msg = v.message or ""
                if v.kind == "report" and msg == "loading the model":
                    at.setdefault("loading", now)
                elif v.kind == "report" and msg.startswith("generating"):
                    at.setdefault("generating", now)
                    gen_from = now
                elif v.kind == "report" and re.match(r"verifying \d+ candidates$", msg) and gen_from is not None:
                    gen_s, gen_from = gen_s + now - gen_from, None
                elif v.kind == "report" and re.match(r"verifying candidate \d+ of \d+: verified$", msg):
                    at.setdefault("verifier", now)
                elif v.kind == "end":
                    at["end"], at["outcome"] = now, msg
            seen = len(values)
        if offered_msg is None:
            offered_msg = next((m for m in client.messages[msgs0:] if OFFERED.search(m.message)), None)
            if offered_msg is not None:
                at["offered"] = now
        if "end" in at:
            break
        await asyncio.sleep(POLL_S)

    await asyncio.sleep(0.2)  # the log and show messages sent just before the progress end
    labels, timings = [], []   # timings: (verifier seconds, "phase s, ...") per candidate, from the server's log
    for m in client.log_messages[logs0:]:
        hit = re.match(rf"{CLASS} candidate \d+ \(turn (\d+)\): (.*?)(?: \[verifier ([\d.]+) s: (.*)\])?$", m.message)
        if hit:
            labels.append(hit[2])
            timings.append((float(hit[3]) if hit[3] else None, hit[4] or "", hit[2].startswith("verified")))
    # where the verifier's time went: the fastest verified candidate's phases, else the first candidate's
    timed = [t for t in timings if t[0] is not None]
    pick = min((t for t in timed if t[2]), key=lambda t: t[0], default=timed[0] if timed else None)
    verified = sum(lab.startswith("verified") for lab in labels)
    stages = collections.Counter(lab for lab in labels if not lab.startswith("verified"))
    applies = [a for a in await actions_at(client, uri, line_of(text, f"class {CLASS}"))
               if a.title.startswith("Apply verified Triton kernel")]
    if "offered" in at and not applies:
        raise RuntimeError(f"{name}: the server said {offered_msg.message!r} but offers no Apply action")
    # reject what was offered (the throw-away feedback store records it), so each module starts clean
    if applies:
        await execute(client, types.Command(title="r", command="tritonrl.reject", arguments=[uri, CLASS]))
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    problems = [m.message for m in client.messages[msgs0:]
                if m.type in (types.MessageType.Error, types.MessageType.Warning)]
    return {"module": name, "offered": at.get("offered"), "verifier": at.get("verifier"), "job": at["end"],
            "outcome": at.get("outcome", "?"), "verified": verified, "total": len(labels),
            "load": (at["generating"] - at["loading"]) if "generating" in at and "loading" in at else None,
            "generate": gen_s, "stages": stages, "applies": len(applies), "problems": problems,
            "phases": f"{pick[0]:.1f}: {pick[1]}" if pick else "-"}


def fmt_s(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def table(rows: list[dict]) -> str:
    lines = ["| module | time to first verified s | verifier said verified s | job time s | model load s | "
             "generating s | verified/total | stages (rejected candidates) | job outcome | "
             "verifier s: phases (fastest verified, else first candidate) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        first = fmt_s(r["offered"]) if r["offered"] is not None else f"{r['job']:.1f} (none verified)"
        stages = ", ".join(f"{k} x{v}" for k, v in sorted(r["stages"].items(), key=lambda kv: -kv[1])) or "-"
        lines.append(f"| {r['module']} | {first} | {fmt_s(r['verifier'])} | {r['job']:.1f} | {fmt_s(r['load'])} | "
                     f"{r['generate']:.1f} | {r['verified']}/{r['total']} | {stages} | {r['outcome']} | {r['phases']} |")
    firsts = [r["offered"] if r["offered"] is not None else r["job"] for r in rows]
    jobs = [r["job"] for r in rows]
    p50 = statistics.median(firsts)
    goal_p50 = statistics.median([r["offered"] if r["offered"] is not None else float("inf") for r in rows])
    lines += ["", f"time to first verified (none verified counted as the job time), over {len(rows)} modules: "
                  f"p50 {p50:.1f} s, p90 {pct(firsts, 90):.1f} s; job time p50 {statistics.median(jobs):.1f} s, "
                  f"p90 {pct(jobs, 90):.1f} s; modules with a verified suggestion: "
                  f"{sum(r['offered'] is not None for r in rows)}/{len(rows)}; "
                  f"goal p50 <= {GOAL_S:.0f} s (none verified counting as never): "
                  f"{'met' if goal_p50 <= GOAL_S else 'NOT met'}"]
    return "\n".join(lines)


async def main_async(a, on_row=None) -> tuple[str, list[dict], dict]:
    """Every module through one server; `on_row(rows, info)` after each (a partial report survives a kill)."""
    work = Path(tempfile.mkdtemp(prefix="tritonrl-lsp-latency-"))
    opts = {"device": a.device, "feedback_db": str(work / "feedback.sqlite3")}
    for k in ("n", "turns", "trials", "max_new_tokens", "verify_timeout_s", "lazy_baseline", "warm_start"):
        if getattr(a, k) is not None:
            opts[k] = getattr(a, k)
    server_args = ("--model", a.model) if a.model else ()
    rows = []
    t_start = time.monotonic()
    async with lsp(*server_args, **opts) as client:
        st = await execute(client, types.Command(title="s", command="tritonrl.status"))
        while st.get("warm") == "loading" and time.monotonic() - t_start < a.job_timeout:
            await asyncio.sleep(0.1)
            st = await execute(client, types.Command(title="s", command="tritonrl.status"))
        ready = {"warm": st.get("warm"), "ready_s": time.monotonic() - t_start}
        print(f"server warm start: {ready['warm']} after {ready['ready_s']:.1f} s", file=sys.stderr, flush=True)
        for name in a.modules:
            r = await run_one(client, name, a.job_timeout)
            rows.append(r)
            print(f"{name}: first verified {fmt_s(r['offered'])} s, job {r['job']:.1f} s, "
                  f"{r['verified']}/{r['total']} verified, {r['outcome']}", file=sys.stderr, flush=True)
            for p in r["problems"]:
                print(f"  server: {p}", file=sys.stderr)
            if on_row is not None:
                on_row(rows, {"model_id": st.get("model_id") or "?", "settings": st["settings"], **ready})
        st_end = await execute(client, types.Command(title="s", command="tritonrl.status"))
    info = {"model_id": st_end.get("model_id") or st.get("model_id") or "?", "settings": st_end["settings"], **ready}
    return table(rows), rows, info


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="a checkpoint folder or run directory, passed to the server as --model "
                                    "(default: the server's embedded default model)")
    ap.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"],
                    help="where the model runs and kernels are verified (the server's device setting)")
    ap.add_argument("-n", type=int, default=None, help="candidates per request (default: the server's)")
    ap.add_argument("--turns", type=int, default=None, help="refinement turns (default: the server's)")
    ap.add_argument("--trials", type=int, default=None, help="verifier trials (default: the server's)")
    ap.add_argument("--max-new-tokens", type=int, default=None, help="tokens per candidate (default: the server's)")
    ap.add_argument("--verify-timeout-s", type=float, default=None,
                    help="seconds per verification phase (default: the server's)")
    ap.add_argument("--lazy-baseline", action=argparse.BooleanOptionalAction, default=None,
                    help="the server's lazyBaseline setting (default: the verifier's default)")
    ap.add_argument("--warm-start", action=argparse.BooleanOptionalAction, default=None,
                    help="the server's warmStart setting (default: the server's, on); the first module starts "
                         "once the warm start is over")
    ap.add_argument("--modules", default=",".join(MODULES), help=f"comma-separated, of {','.join(MODULES)}")
    ap.add_argument("--job-timeout", type=float, default=1800.0, help="give up on a job after this many seconds")
    ap.add_argument("--out", help="also write the table (with the command and the machine) to this markdown file")
    a = ap.parse_args()
    a.modules = [m.strip() for m in a.modules.split(",") if m.strip()]
    unknown = [m for m in a.modules if not (MODULES_DIR / f"{m}.py").is_file()]
    if unknown or not a.modules:
        ap.error(f"unknown modules {unknown}; choose from {','.join(MODULES)}")
    t0 = time.monotonic()
    mach = machine()

    def report(rows: list[dict], info: dict, done: bool) -> str:
        s = info["settings"]
        head = (f"model: {info['model_id']}; device {a.device} ({resolved_device(a.device)}); server settings: "
                f"n={s['n']}, turns={s['turns']}, trials={s['trials'] or 'default'}, "
                f"lazy_baseline={'default' if s.get('lazy_baseline') is None else s['lazy_baseline']}, "
                f"max_new_tokens={s['max_new_tokens']}, warm_start={s.get('warm_start')}; server start to ready "
                f"(initialize, settings, warm start: {info.get('warm')}) {info.get('ready_s', 0):.1f} s, before the "
                f"first module; wall time {time.monotonic() - t0:.0f} s"
                + ("" if done else f"; PARTIAL: {len(rows)} of {len(a.modules)} modules so far"))
        tbl = table(rows)
        if a.out:
            cmd = "python benchmarks/lsp_suggest_latency.py " + " ".join(sys.argv[1:])
            Path(a.out).parent.mkdir(parents=True, exist_ok=True)
            Path(a.out).write_text(f"# Language server: generate to first verified suggestion\n\nCommand:\n\n"
                                   f"    {cmd}\n\nMachine: {mach}. Measured {time.strftime('%Y-%m-%d')}.\n\n"
                                   f"{head}\n\n{tbl}\n")
        return f"{head}\n\n{tbl}\n\nmachine: {mach}"

    _, rows, info = asyncio.run(main_async(a, on_row=lambda rows, info: report(rows, info, False)))
    print(report(rows, info, True))
    if all(r["outcome"] == "model not loaded" for r in rows):
        print("the server could not load the model (see the messages above)", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
