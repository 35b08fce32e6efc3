"""Turn generated samples into a corpus file: novelty guard, then the real verifier, then JSONL.

Each written line is the sample (`id`, `family`, `problem`, `plan`, `candidate`, `response`) plus
`verdict` (the verifier's summary: stage, trials, errors, kernels, shapes, device) and `novelty`
(the closest KernelBench file and its similarity). Failures are skipped, counted and reported.
Lines are appended as verdicts arrive (a killed run loses nothing; `resume` picks up from there)
and the file is rewritten in generation order at the end.
"""
from __future__ import annotations

import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from .families.common import Sample
from .novelty import NEAR_COPY, closest, find_kernelbench


# Element budget per input for CPU verification: problems are shrunk (sizes halved) to at most 8192
# elements per input, then run at those sizes and two odd perturbations of them (e.g. 64x64 matmuls,
# then 65x65 and 63x63, so every masked edge is exercised). Measured 2026-12-02 on the busy 2-core
# machine: a 256x128x250 matmul verified in 39 s at the verifier's default budget, 14 s at 4096;
# small elementwise problems cost the same either way (sandbox start-up dominates).
CPU_SIZES = {"per_tensor": 1 << 13, "total": 1 << 14}


@dataclass
class BuildReport:
    """What a build kept and rejected, and why."""

    out: str
    generated: int = 0
    kept: Counter = field(default_factory=Counter)        # by family, including resumed samples
    resumed: int = 0
    stale: int = 0                                        # lines the generator now writes differently
    rejected: list[tuple[str, str, str]] = field(default_factory=list)  # (id, family, reason)
    max_novelty: float = 0.0
    seconds: float = 0.0

    def summary(self) -> str:
        fams = sorted(set(self.kept) | {f for _, f, _ in self.rejected})
        rej = Counter(f for _, f, _ in self.rejected)
        lines = [f"{sum(self.kept.values())}/{self.generated} samples written to {self.out} "
                 f"({self.resumed} kept from an earlier run, {self.stale} stale ones verified again, "
                 f"{len(self.rejected)} rejected, {self.seconds:.0f} s)",
                 f"closest KernelBench similarity of a kept problem: {self.max_novelty:.3f} (near-copy at {NEAR_COPY})",
                 "family: kept / rejected"]
        lines += [f"  {f}: {self.kept[f]} / {rej[f]}" for f in fams]
        lines += [f"  rejected {i} ({f}): {why}" for i, f, why in self.rejected[:50]]
        return "\n".join(lines)


def verdict_summary(v) -> dict:
    """The parts of a Verdict a corpus line keeps."""
    d = v.to_dict()
    keep = ("ok", "stage", "trials", "max_abs_err", "max_rel_err", "kernels", "shapes", "device", "elapsed_s")
    return {k: d[k] for k in keep if k in d}


def _reason(v) -> str:
    r = v.reasons[0] if v.reasons else None
    return f"{v.stage}/{r.rule}: {r.message[:300]}" if r else f"{v.stage}: failed"


def build_corpus(samples: list[Sample], out: str | Path, *, verify: bool = True, parallel: int = 2,
                 resume: bool = False, kernelbench: str | Path | None = None, log: TextIO | None = None,
                 config=None) -> BuildReport:
    """Write the samples that are novel and (unless `verify` is False) pass the verifier to `out`.

    `config` is a verifier VerifyConfig (default: one trial at the base sizes plus the perturbed
    ones, warm sandbox pool, no timing). Raises ValueError when KernelBench cannot be found."""
    t0 = time.monotonic()
    out = Path(out)
    kb = find_kernelbench(kernelbench)
    report = BuildReport(str(out), generated=len(samples))
    order = {s.id: i for i, s in enumerate(samples)}
    done: dict[str, str] = {}
    if resume and out.exists():
        for line in out.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                s = samples[order[row["id"]]] if row.get("id") in order else None
                # a line is kept only while the generator still writes it: a changed template makes it
                # stale, and the sample as written now is verified again in its place
                if s is not None and (row.get("problem"), row.get("plan"), row.get("candidate")) == (
                        s.problem, s.plan, s.candidate):
                    done[row["id"]] = line
                elif s is not None:
                    report.stale += 1
        report.resumed = len(done)
        for line in done.values():
            row = json.loads(line)
            report.kept[row["family"]] += 1
            report.max_novelty = max(report.max_novelty, row.get("novelty", {}).get("score", 0.0))
    out.parent.mkdir(parents=True, exist_ok=True)
    lock = threading.Lock()
    fh = out.open("w")
    for _, line in sorted(done.items(), key=lambda kv: order[kv[0]]):
        fh.write(line + "\n")
    fh.flush()
    todo = [s for s in samples if s.id not in done]

    def note(msg: str) -> None:
        if log is not None:
            print(msg, file=log, flush=True)

    cfg = None
    if verify:
        from verifier import VerifyConfig

        cfg = config or VerifyConfig(pool=True, trials=1, measure=False, max_parallel=parallel, **CPU_SIZES)

    def one(s: Sample) -> None:
        score, path = closest(s.problem, kb)
        row = {**asdict(s), "response": s.response, "novelty": {"score": round(score, 4), "closest": Path(path).stem}}
        why = None
        if score >= NEAR_COPY:
            why = f"novelty: {score:.3f} similar to KernelBench {Path(path).name}"
        elif cfg is not None:
            from verifier import verify_batch
            from verifier.problem import ProblemError

            try:
                (v,) = verify_batch(s.problem, [s.candidate], cfg)
            except ProblemError as e:
                why = f"problem: {e}"
            except Exception as e:  # a verifier failure on one sample must not end a long build
                why = f"verifier error: {type(e).__name__}: {e}"[:400]
            else:
                row["verdict"] = verdict_summary(v)
                why = None if v.ok else _reason(v)
        with lock:
            if why:
                report.rejected.append((s.id, s.family, why))
                note(f"reject {s.id}: {why}")
            else:
                report.kept[s.family] += 1
                report.max_novelty = max(report.max_novelty, score)
                line = json.dumps(row)
                done[s.id] = line
                fh.write(line + "\n")
                fh.flush()
                n = sum(report.kept.values())
                if n % 25 == 0:
                    note(f"{n} kept, {len(report.rejected)} rejected, {time.monotonic() - t0:.0f} s")

    try:
        with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
            futures = [pool.submit(one, s) for s in todo]
            try:
                for f in futures:
                    f.result()
            except BaseException:  # Ctrl-C: finish the samples in flight, drop the queue, keep what verified
                for f in futures:
                    f.cancel()
                raise
    finally:
        fh.close()
        rows = sorted(done.items(), key=lambda kv: order[kv[0]])
        tmp = out.with_suffix(out.suffix + ".tmp")
        tmp.write_text("".join(line + "\n" for _, line in rows))
        tmp.replace(out)
    report.rejected.sort(key=lambda r: order[r[0]])
    report.seconds = time.monotonic() - t0
    return report
