"""The supervisor: runs the layers in order and turns the workers' evidence into verdicts.

It runs outside every sandbox and executes no problem or candidate code itself: the reference and
each candidate run in their own sandboxed workers; files they write are read with
`torch.load(weights_only=True)` or JSON. Correctness phases of a batch run in parallel; GPU timing
phases take a lock (one per GPU, across processes) so timings stay clean.
"""
from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import logging
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

from . import sandbox
from .pool import POOL, Worker, spawn
from .compare import INF, compare
from .problem import VALUE_VARIANTS, ProblemError, parse_problem
from .static_check import check_candidate
from .verdict import Finding, Verdict

PEAK_BANDWIDTH = 4.8e12  # bytes/s, H200 datasheet: below this floor a timing is not believable
TIMED_SETS = 8  # inputs (base sizes, fresh seeds) the reference adds for the timing phase: each timed call whose time
                # counts runs on inputs the candidate has not seen, so a cache of earlier results has nothing to hit


@dataclass
class VerifyConfig:
    """How to verify. None means the device-dependent default."""

    device: str = "auto"            # auto | cuda | cpu
    trials: int | None = None       # trials at the base shapes (fresh seeds each); default 3 CPU, 2 GPU
    perturb: int = 2                # extra trials at perturbed (odd) sizes
    ordered: bool = True            # two extra trials whose floating inputs are sorted along every axis
                                    # (ascending, then descending): the extreme of each reduced row sits at
                                    # its end, so a kernel that skips the first or last element always fails
    values: bool = True             # one trial each with floating inputs times 32, with all-zero floating inputs,
                                    # with the float arguments of __init__ and forward times 1.5, and with their int
                                    # and bool arguments changed (at the small sizes; a variant the reference cannot
                                    # run, or gets non-finite outputs from, is left out and named in the verdict's
                                    # flags)
    larger: bool = True             # one trial with the size constants above the problem's own (odd, past the next
                                    # power of two: a fixed block sized for the problem's rows misses their end),
                                    # within the per-input and total budgets below; a flag says when the budget kept
                                    # them at or under the problem's own
    timeout_s: float | None = None  # per candidate phase; default 90 s CPU, 180 s GPU
    memory_bytes: int | None = None  # host memory of one sandbox; default 6 GiB CPU, 32 GiB GPU
    measure: bool = True            # GPU only: time candidate and baselines
    time_on_cpu: bool = False       # tests: run the timing phase on a CPU too, by the wall clock. The interpreter's
                                    # speed says nothing about a GPU; this exercises the timing protocol and its
                                    # checks where no GPU is (CI)
    compile_baseline: bool = True   # GPU timing: also time torch.compile of the reference (RL skips it: slow)
    timing_reps: int | None = None  # GPU timing: most calls of a candidate's timed loop (default 200). The time is
                                    # the median of the first call on each of the TIMED_SETS unseen input sets
                                    # whatever this is; the calls after those only repeat the output checks and
                                    # audits, inside the exclusive GPU window every other job waits for. RL caps it
    per_tensor: int = 1 << 15       # CPU: shrink the problem until each input has at most this many elements
    total: int = 1 << 16
    gpu_per_tensor: int = 1 << 28   # GPU: the problem's own sizes, unless an input is larger than this (1 GiB
    gpu_total: int = 1 << 29        # of fp32) or all together than this: then shrunk the same way. Every trial's
                                    # inputs and outputs travel through files and host memory, and KernelBench's
                                    # largest level-1 inputs (6.4 GB each) do not fit a sandbox's 32 GiB
    implausible_speedup: float = 5.0
    atol: float | None = None       # override the dtype-aware tolerances (verifier/compare.py)
    rtol: float | None = None
    static_checks: bool = True      # tests of the sandbox itself turn this off; never in production
    guard_imports: bool = True      # the worker refuses the candidate's imports of modules the static rules do not
                                    # allow (eval'd code included); tests of the sandbox's containment of hostile
                                    # code (os, ctypes) turn it off; never in production
    max_parallel: int | None = None
    pool: bool = False              # keep warm sandboxed workers between calls (servers, trainers, benchmarks)
    pool_size: int | None = None    # warm candidate workers kept; default max_parallel (a trainer verifying
                                    # several problems at once keeps enough for all of them)
    lazy_baseline: bool = True      # GPU: time the baseline only once a candidate passes correctness, not in
                                    # front of every candidate; the reference then runs ahead while the model
                                    # writes (H200, language server, 5 modules: p50 15.4 s against 23.4 s eager,
                                    # benchmarks/results/lsp_suggest_latency_h200.md). False: time it first
    reference_pool: int = 1         # warm reference workers kept: one per problem verified at the same time (a
                                    # cold one costs seconds in front of every candidate of its problem)
    batch_timing: bool = False      # GPU: time a batch's correct candidates (and its baseline) together, in one
                                    # exclusive GPU window once every candidate of the batch has had its correctness
                                    # phase, not each as it passes. A trainer's throughput (one lock hand-over a
                                    # problem, not one a kernel); the language server keeps False: it offers each
                                    # kernel as soon as that one is timed
    timing_patience_s: float = 0.0  # GPU: how long a timing phase lets other jobs' correctness phases start before
                                    # it closes the GPU to them (`_gpu_lock`); 0: at once (an interactive user waits)

    @property
    def times(self) -> bool:
        """Whether candidates and baselines are timed (a resolved config)."""
        return self.measure and (self.device == "cuda" or self.time_on_cpu)

    def resolved(self) -> "VerifyConfig":
        c = dataclasses.replace(self)
        if c.device == "auto":
            c.device = "cuda" if _cuda_available() else "cpu"
        if c.device not in ("cpu", "cuda"):
            raise ValueError(f"device must be auto, cuda or cpu, not {c.device!r}")
        if c.device == "cuda" and not _cuda_available():
            raise ValueError("--device cuda asked for, but no CUDA GPU is visible")
        gpu = c.device == "cuda"
        c.trials = c.trials or (2 if gpu else 3)
        c.timeout_s = c.timeout_s or (180.0 if gpu else 90.0)
        c.memory_bytes = c.memory_bytes or ((32 << 30) if gpu else (6 << 30))
        c.max_parallel = c.max_parallel or max(1, min(8, (os.cpu_count() or 2) // (2 if gpu else 1)))
        return c


def _cuda_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:
        return False


@contextmanager
def _gpu_lock(shared: bool = False, device: str = "cuda", patience_s: float = 0.0):
    """Reader-writer lock on this GPU, across every verifier process of this user.

    Correctness phases (compiles, short runs) hold it shared and overlap; a timing phase holds it
    exclusively, so nothing else runs on the GPU while a kernel or a baseline is timed. On CPU
    there is nothing to protect. Yields the seconds spent waiting for it.

    Writers go first: everyone passes a turnstile (a second lock file) on the way in, and a timing
    phase keeps it closed while it waits. flock alone never hands the lock to a writer while shared
    holders keep overlapping, and a busy verifier (a dozen candidates compiling at once) always overlaps:
    beside a 12-way corpus build on the H200, tests/test_gpu.py finished no test in 400 s.

    `patience_s` (timing phases only): first wait up to this long for the shared holders to end of themselves, new
    ones still let in, and only then close the turnstile. A trainer's batch of timings then runs once its step's
    correctness phases are done, instead of draining them once per timing (each drain idles the GPU while the
    longest phase in flight ends, and holds every new job back meanwhile)."""
    if device != "cuda":
        yield 0.0
        return
    dev = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0] or "0"
    d = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tritonrl"
    d.mkdir(parents=True, exist_ok=True)
    with open(d / f"gpu{dev}.gate", "w") as gate, open(d / f"gpu{dev}.lock", "w") as f:
        t0 = time.monotonic()
        if shared or not _patient_exclusive(gate, f, patience_s):
            fcntl.flock(gate, fcntl.LOCK_EX)
            try:
                fcntl.flock(f, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
            finally:
                fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield time.monotonic() - t0
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _patient_exclusive(gate, f, patience_s: float, poll_s: float = 0.05) -> bool:
    """Try for the exclusive lock without closing the turnstile, for up to `patience_s`; True once it is held.
    Passing the turnstile each try keeps this behind a writer that already closed it."""
    deadline = time.monotonic() + patience_s
    while time.monotonic() < deadline:
        try:
            fcntl.flock(gate, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            time.sleep(poll_s)
            continue
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        time.sleep(poll_s)
    return False


# A problem's baseline timing, kept for its later batches (a language server verifies the same module job after
# job): BASELINE_TTL_S after it was timed it is timed again, and the faster of the two is kept. A baseline timed
# while something else loaded the GPU is slow, and a slow baseline inflates every speedup measured against it; load
# only ever slows a baseline down, so the faster reading is the truer one.
BASELINE_TTL_S = 600.0
_TIMING_CACHE: dict[str, dict] = {}
_TIMING_AT: dict[str, float] = {}  # when each entry was last timed (time.monotonic)


def _fresh_baseline(key: str) -> dict:
    """The cached baseline of a problem while it is younger than BASELINE_TTL_S, else {} (time it again)."""
    if key in _TIMING_CACHE and time.monotonic() - _TIMING_AT.get(key, float("-inf")) < BASELINE_TTL_S:
        return _TIMING_CACHE[key]
    return {}


@dataclass
class Reference:
    """The reference worker's products, kept outside every candidate's reach.

    On a GPU the worker stays alive after writing its outputs, holding the baseline: it is timed
    (`ensure_reference_timing`) only once a candidate has passed correctness and needs a speedup."""

    worker: Worker
    outputs: list
    shapes: list
    timing: dict
    key: str = ""
    pending: bool = False           # the baseline is still to be timed by this worker
    warmed: threading.Thread | None = None  # watches the worker's torch.compile warm-up (message R)
    ready_msg: bytes | None = None
    state_changed: list = dataclasses.field(default_factory=list)  # the reference's own kept tensors that
                                    # forward changed (e.g. batch norm's running statistics): then candidates may too
    inputs_mutated: list = dataclasses.field(default_factory=list)  # inputs the reference's forward changes in place
                                    # (x.relu_()): candidates get them as they were before, and must not change them
    skipped: list = dataclasses.field(default_factory=list)  # variants (odd sizes, sorted inputs) the reference
                                    # itself cannot run: no candidate is checked there (a flag on each verdict)
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    clock: dict = dataclasses.field(default_factory=dict)  # where its seconds went (diagnostics for verdicts' phases)

    def close(self) -> None:
        self.outputs = []
        self.worker.box.kill()
        if self.warmed is not None:
            self.warmed.join()  # returns within 0.2 s of the kill: its pipe is read before it is closed
        self.worker.close()


def _limits(cfg: VerifyConfig) -> sandbox.Limits:
    return sandbox.Limits(timeout_s=cfg.timeout_s, memory_bytes=cfg.memory_bytes)


def _pool_size(kind: str, cfg: VerifyConfig) -> int:
    """Warm workers of this kind the pool keeps for `cfg`."""
    return (cfg.pool_size or cfg.max_parallel) if kind == "candidate" else max(1, cfg.reference_pool)


def _worker(kind: str, cfg: VerifyConfig) -> Worker:
    """A fresh sandboxed worker: from the warm pool when enabled, else started now."""
    base = os.environ.get("TRITONRL_TMPDIR")
    if cfg.pool:
        return POOL.get(kind, cfg.device, _limits(cfg), _pool_size(kind, cfg), base)
    return spawn(kind, cfg.device, _limits(cfg), base)


def prewarm(config: VerifyConfig | None = None, wait: bool = True) -> None:
    """Fill the warm pool for this config now (servers and benchmarks call it before the first job).
    `wait=False` starts the workers and returns: they warm up while the caller gets on with its setup."""
    cfg = (config or VerifyConfig(pool=True)).resolved()
    base = os.environ.get("TRITONRL_TMPDIR")
    for kind in ("reference", "candidate"):
        POOL.prewarm(kind, cfg.device, _limits(cfg), _pool_size(kind, cfg), base, wait=wait)


def prepare_reference(problem_src: str, cfg: VerifyConfig) -> Reference:
    """Run the problem in its own sandbox: plan shapes, make inputs, compute reference outputs."""
    import torch

    t0 = time.monotonic()
    parse_problem(problem_src)
    key = hashlib.sha256(f"{problem_src}|{cfg.device}".encode()).hexdigest()
    want_timing = cfg.times and not _fresh_baseline(key)
    job = {"device": cfg.device, "problem": "problem.py", "seed": secrets.randbelow(2**31 - 10_000),
           "trials": cfg.trials, "perturb": cfg.perturb, "ordered": cfg.ordered, "values": cfg.values,
           "larger": cfg.larger,
           "per_tensor": cfg.per_tensor,
           "total": cfg.total, "gpu_per_tensor": cfg.gpu_per_tensor, "gpu_total": cfg.gpu_total,
           "time": want_timing, "timed_sets": TIMED_SETS if cfg.times else 0, "compile": cfg.compile_baseline,
           "lazy": cfg.lazy_baseline, "timeout_s": cfg.timeout_s}
    w = _worker("reference", cfg)
    warm_wait = _wait_warm(w, cfg)
    with _gpu_lock(shared=True, device=cfg.device):
        w.dispatch(json.dumps(job), files={"problem.py": problem_src})
        t_job = time.monotonic()
        msg = w.wait_message(cfg.timeout_s)
    if msg == b"R":  # eager baseline: its outputs are written and it is ready to time the baseline now
        with _gpu_lock():
            w.send(b"G")
            res = w.finish(cfg.timeout_s)
    else:  # O (lazy): outputs written, the worker waits to time the baseline; else it ended (or hangs: killed)
        res = None if msg == b"O" else w.finish(_time_left(t_job, cfg) if msg is None else cfg.timeout_s)
    d = w.work
    ref = Reference(w, [], [], {}, key=key)
    if (d / "error.json").exists():
        err = json.loads((d / "error.json").read_text())
        w.close()
        if err.get("phase") == "unverifiable":  # it runs, but its output is nothing a kernel can be checked against
            raise ProblemError(err["message"])
        raise ProblemError(f"the problem does not run: {err['type']}: {err['message']}")
    if not (msg == b"O" or (d / "done.json").exists()) or not (d / "shapes.json").exists():
        why = "sent an unexpected message" if res is None else _reference_failure(res, cfg)
        tail = "" if res is None else res.stderr_tail[-2000:].strip()
        w.close()
        raise ProblemError(f"the reference worker {why}" + (f": {tail}" if tail else ""))
    ref.outputs = torch.load(d / "ref_outputs.pt", weights_only=True, mmap=True)
    ref.shapes = json.loads((d / "shapes.json").read_text())
    if (d / "state.json").exists():
        state = json.loads((d / "state.json").read_text())
        ref.state_changed = state.get("changed", [])
        ref.inputs_mutated = state.get("inputs_mutated", [])
    if (d / "skipped.json").exists():
        ref.skipped = json.loads((d / "skipped.json").read_text())
    ref.clock = {"reference_total": round(time.monotonic() - t0, 3), "reference_warm_wait": warm_wait,
                 **_clock_readings(d / "clock.json")}
    if want_timing and msg == b"R":
        _cache_baseline(key, d)
    ref.timing = _fresh_baseline(key)
    if msg == b"O":
        ref.pending = True
        ref.warmed = threading.Thread(target=_await_warm_up, args=(ref, cfg), daemon=True)
        ref.warmed.start()
    return ref


def _seconds(d: dict) -> dict[str, float]:
    """The entries of a worker's own clock readings that are plain numbers of seconds, rounded: diagnostics from
    inside a sandbox, never part of a verdict's judgement."""
    return {k: round(float(x), 3) for k, x in d.items()
            if isinstance(k, str) and isinstance(x, (int, float)) and 0 <= x < 1e6}


def _clock_readings(path: Path) -> dict[str, float]:
    """The reference worker's clock.json (its plan, runs and save), or nothing when it is missing or unreadable."""
    try:
        d = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return _seconds(d) if isinstance(d, dict) else {}


def _cache_baseline(key: str, work: Path) -> None:
    """Keep the baseline timing a reference worker wrote (if it wrote one) for the later batches of its problem;
    a re-timing keeps the faster reading of each baseline (see BASELINE_TTL_S)."""
    if not (work / "timing.json").exists():
        return
    new = json.loads((work / "timing.json").read_text())
    old = _TIMING_CACHE.get(key, {})
    for k in ("eager_ms", "compile_ms"):
        a, b = old.get(k), new.get(k)
        if isinstance(a, (int, float)) and a > 0 and not (isinstance(b, (int, float)) and 0 < b <= a):
            new[k] = a
    _TIMING_CACHE[key], _TIMING_AT[key] = new, time.monotonic()


def _await_warm_up(ref: Reference, cfg: VerifyConfig) -> None:
    """Hold the GPU shared while the reference compiles its torch.compile baseline: that GPU work must
    not overlap another kernel's timing phase. Ends at the worker's R (ready to time) or its death."""
    with _gpu_lock(shared=True, device=cfg.device):
        ref.ready_msg = ref.worker.wait_message(cfg.timeout_s)


def ensure_reference_timing(ref: Reference, cfg: VerifyConfig, locked: bool = False) -> dict[str, float]:
    """Time the baseline (eager, torch.compile) once, the first time a candidate of this batch needs it.

    Returns the seconds this call spent, for the asking candidate's `phases_s`; afterwards
    `ref.timing` holds the baseline (empty when it could not be timed: candidates then get no speedup). A candidate
    that waited while another one timed it gets that wait as `baseline_wait`. `locked`: the caller holds the GPU
    exclusively already (and has seen the reference's warm-up end: it holds the lock shared)."""
    t_wait = time.monotonic()
    with ref.lock:
        if not ref.pending:
            waited = time.monotonic() - t_wait
            return {"baseline_wait": round(waited, 3)} if waited >= 0.01 else {}
        ref.pending = False
        t0 = time.monotonic()
        if ref.warmed is not None:
            ref.warmed.join(cfg.timeout_s)
        out = {"ref_warm_up": round(time.monotonic() - t0, 3)}
        if ref.ready_msg == b"R":
            with (nullcontext(0.0) if locked else _gpu_lock(patience_s=cfg.timing_patience_s)) as lock_s:
                t1 = time.monotonic()
                ref.worker.send(b"G")
                ref.worker.finish(cfg.timeout_s)
            out.update(ref_timing_lock=round(lock_s, 3), ref_timing=round(time.monotonic() - t1, 3))
            _cache_baseline(ref.key, ref.worker.work)
        ref.timing = _fresh_baseline(ref.key)
        return out


# reference runs started ahead of their candidates (`ReferenceRun`) run here
_AHEAD = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tritonrl-reference")


class ReferenceRun:
    """A problem's reference run, started before its candidates exist (while a model writes them).

    Pass it to `verify_batch(..., reference=run)`, which waits for it instead of running its own; close
    it when done (it may serve several batches). It starts at once unless it would time the GPU
    baseline right away (eager baseline timing): a baseline timed while a model generates on the same
    GPU would be slow and inflate every speedup, so that one starts when first needed."""

    def __init__(self, problem_src: str, config: VerifyConfig | None = None, **overrides):
        self.problem_src = problem_src
        self.cfg = dataclasses.replace(config or VerifyConfig(), **overrides).resolved()
        self._lock = threading.Lock()
        self._ref: Reference | None = None
        self._closed = False
        self._fut = _AHEAD.submit(prepare_reference, problem_src, self.cfg) if _runs_ahead(self.cfg) else None

    @property
    def started(self) -> bool:
        """Whether it runs ahead (False: it starts when `result` is first called)."""
        return self._fut is not None

    def result(self) -> Reference:
        """The reference, waiting for it; raises ProblemError when the problem does not run."""
        with self._lock:
            if self._closed:
                raise RuntimeError("this reference run is closed")
            if self._ref is None:
                self._ref = self._fut.result() if self._fut is not None else prepare_reference(self.problem_src,
                                                                                               self.cfg)
            return self._ref

    def close(self) -> None:
        """Free its sandbox now, or as soon as a run still in progress ends (without waiting for it)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._ref is not None:
                self._ref.close()
            elif self._fut is not None and not self._fut.cancel():
                self._fut.add_done_callback(lambda f: f.exception() is None and f.result().close())


def _runs_ahead(cfg: VerifyConfig) -> bool:
    """Whether a reference run may start before its candidates: not when it would time the GPU baseline
    at once (eager timing), beside whatever else the caller runs on the GPU meanwhile."""
    return not (cfg.times and not cfg.lazy_baseline)


def _clean_exit(res: sandbox.SandboxResult | None) -> bool:
    """Whether a worker ended by its own exit(0): not timed out, not killed at a limit or by a signal."""
    return (res is not None and res.returncode == 0 and not res.timed_out and not res.memory_exceeded
            and not res.workdir_exceeded)


def _sandbox_failure(v: Verdict, res: sandbox.SandboxResult) -> None:
    err, last = res.stderr_tail, _last_line(res.stderr_tail)
    if res.timed_out:
        v.fail("sandbox", "timeout", "candidate did not finish within the time limit (hang or far too slow)")
    elif limit := _over_limit(res):
        v.fail("sandbox", limit[0], "candidate " + limit[1])
    elif v.device == "cuda" and ("OutOfMemoryError" in last or "CUDA out of memory" in last):
        # the GPU is shared (other verifications, a trainer, the user's own programs): not a verdict on the kernel.
        # A candidate can print this line itself; it is still rejected, and a trainer only leaves it unscored
        v.fail("sandbox", "gpu-out-of-memory", "the GPU ran out of memory while the candidate was checked (it is "
               f"shared with other processes), so it could not be verified: {last}"[:500])
    elif "CUDA error" in err or "cudaError" in err or "illegal memory access" in err:
        v.fail("sandbox", "cuda-error", "CUDA error: " + last)
    elif res.signal_name == "SIGKILL":
        v.fail("sandbox", "crash", "candidate process " + _foreign_kill(res))
    elif res.signal_name:
        v.fail("sandbox", "crash", f"candidate process was killed by {res.signal_name}")
    elif res.returncode not in (0, None):
        v.fail("sandbox", "exit", f"candidate process exited with code {res.returncode}: {last}")
    else:
        v.fail("sandbox", "no-result", "candidate process ended without a result (did it exit early?)")


EXIT_GRACE_S = 10.0  # a worker that has closed its end may still be exiting (torch and CUDA teardown)


def _time_left(t_job: float, cfg: VerifyConfig) -> float:
    """How long to wait for a worker that sent no message: the rest of its job's time, and at least EXIT_GRACE_S.
    A worker whose job raised (SystemExit, an error outside the worker's own handler) closes its end while it is
    still tearing down; killing it there at once reported "timed out: did not finish its trials within 180 s" for
    references that had failed in seconds (their traceback lost). One that ran out its time is killed after the grace
    (it used to get a second full timeout)."""
    return max(EXIT_GRACE_S, cfg.timeout_s - (time.monotonic() - t_job))


def _reference_failure(res: sandbox.SandboxResult, cfg: VerifyConfig) -> str:
    """How a reference worker ended without its outputs, in words."""
    if res.timed_out:
        why = (f"timed out: the problem's own forward did not finish its trials within {cfg.timeout_s:.0f} s on "
               f"{cfg.device}")
        if cfg.device != "cuda":
            why += (" (on a CPU the verifier scales a problem down through its module-level integer constants; sizes "
                    "written as literals, in get_inputs or in the model, stay as written)")
        return why
    if limit := _over_limit(res):
        return limit[1]
    if res.signal_name == "SIGKILL":
        return _foreign_kill(res)
    return f"exited with {res.signal_name or res.returncode}"


def _over_limit(res: sandbox.SandboxResult) -> tuple[str, str] | None:
    """(rule, what the process did) when the sandbox killed it at a limit of memory or of its work dir."""
    if res.memory_exceeded:
        return "memory", f"exceeded the host-memory limit ({_memory_use(res)})"
    if res.workdir_exceeded:
        return "workdir-limit", (f"wrote more than {res.workdir_bytes >> 20} MiB to its work directory (the "
                                 "sandbox's limit)")
    return None


def _foreign_kill(res: sandbox.SandboxResult) -> str:
    """A SIGKILL the verifier did not send, in words."""
    return (f"was killed by SIGKILL, not by the verifier's limits: by itself or by the system's out-of-memory "
            f"killer ({_memory_use(res)} when last measured)")


def _memory_use(res: sandbox.SandboxResult) -> str:
    """Peak memory in words, with the part that was files in a memory-backed work dir."""
    where = (f", of which up to {res.workdir_bytes >> 20} MiB were files in its work directory on tmpfs"
             if res.workdir_in_memory and res.workdir_bytes >= (1 << 20) else "")
    return f"peak {res.peak_rss >> 20} MiB{where}"


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:500] if lines else ""


def _judge(v: Verdict, result: dict, ref: Reference, cfg: VerifyConfig) -> None:
    """Launch and correctness layers from the worker's evidence."""
    if result.get("error"):
        e = result["error"]
        rule = {"import": "import-error", "init": "init-error"}.get(e["phase"], "forward-error")
        msg = f"{e['type']}: {e['message']}"
        v.fail("sandbox", "cuda-error" if "CUDA" in msg else rule, msg[:1500])
        v.log_tail = e.get("traceback", "")[-3000:]
        return
    if result.get("background"):
        v.fail("sandbox", "background-work", "after its calls the candidate left work running: "
               + "; ".join(str(b) for b in result["background"][:3]) + " (nothing may run beside a timed baseline "
               "or a timed call)")
        return
    outputs = {r["label"]: r["outputs"] for r in ref.outputs}
    passed = run = 0
    kernels: set[str] = set()
    launch_fail = corr_fail = None
    max_abs = max_rel = 0.0
    for t in result["trials"]:
        run += 1
        where = f"{t['label']} trial {t['trial'] + 1}" + (f" ({VALUE_VARIANTS[t['label']]})"
                                                          if t["label"] in VALUE_VARIANTS else "")
        if t["label"] == "large":  # the one trial above the problem's sizes: which sizes, so the failure is clear
            where += " (larger sizes: " + ", ".join(f"{k} = {c!r}" for s in ref.shapes if s["label"] == "large"
                                                    for k, c in s["constants"].items()) + ")"
        if t.get("error"):
            e = t["error"]
            msg = f"{e['type']}: {e['message']}"
            if "not a plain tensor" in msg:
                corr_fail = corr_fail or ("output-type", f"{where}: {msg}")
                continue
            v.fail("sandbox", "cuda-error" if "CUDA" in msg else "forward-error", f"{where}: {msg[:1500]}")
            v.log_tail = e.get("traceback", "")[-3000:]
            return
        mine = [r for r in t["launches"] if r["module"] == "candidate"]
        live = [r for r in mine if r["grid"] and all(g > 0 for g in r["grid"])]
        kernels |= {r["name"] for r in live}
        if t["ops"]:
            # torch ops, reads of tensor memory into Python, Python functions handed to a kernel, the log disabled
            launch_fail = launch_fail or ("runtime-torch-compute", f"{where}: forward computed outside Triton "
                                          f"kernels: {', '.join(t['ops'][:8])}")
        if not live:
            rule = "empty-grid" if mine else "no-launch"
            msg = "kernels launched only with empty grids" if mine else "no Triton kernel of the candidate launched"
            launch_fail = launch_fail or (rule, f"{where}: {msg} during forward")
            continue
        if t.get("races"):  # CPU only: the interpreter ran the programs in order, a GPU would not
            corr_fail = corr_fail or ("cross-program-race", f"{where}: {t['races'][0]}")
            continue
        if t.get("intra_races"):  # CPU only: the interpreter ran a block's threads as one, a GPU would not
            corr_fail = corr_fail or ("intra-program-race", f"{where}: {t['intra_races'][0]}")
            continue
        if t.get("autotune"):  # CPU only: a config the turns did not pick writes something else, or too many configs
            corr_fail = corr_fail or (t["autotune"][0][0], f"{where}: {t['autotune'][0][1]}"[:1500])
            continue
        if t["mutated"]:
            also = sorted(set(t["mutated"]) & set(ref.inputs_mutated))
            hint = (f" (Model.forward changes input(s) {also} in place too, but a candidate must leave its inputs as "
                    "they were: write the result to a new tensor and return it)") if also else ""
            corr_fail = corr_fail or ("input-mutated", f"{where}: forward modified input(s) {t['mutated']} in "
                                      f"place{hint}")
            continue
        try:
            ok, msg, a, r = compare(outputs[t["label"]][t["trial"]], t["output"], cfg.atol, cfg.rtol)
        except Exception as e:  # an output compare cannot read is this candidate's failure, never the batch's
            ok, msg, a, r = False, f"the output could not be compared: {type(e).__name__}: {e}"[:500], INF, INF
        max_abs, max_rel = max(max_abs, a), max(max_rel, r)
        if ok:
            passed += 1
        else:
            corr_fail = corr_fail or ("output-mismatch", f"{where}: {msg}")
    # a reference that keeps state (running statistics): the candidate's tensors of the same names must have changed
    # as the reference's did, after as many calls on the same inputs
    for r in ref.outputs:
        mine = (result.get("state_values") or {}).get(r["label"])
        if not r.get("state") or mine is None:  # a variant the candidate did not reach failed above
            continue
        for name, want in r["state"].items():
            got = mine.get(name) if isinstance(mine, dict) else None
            if got is None:
                corr_fail = corr_fail or ("state-mismatch", f"{r['label']}: Model's forward updates {name}, which "
                                          "the candidate's forward leaves as it was (or the candidate keeps no tensor "
                                          "by that name): a drop-in replacement updates the same state")
                continue
            try:
                ok, msg, _, _ = compare(want, got, cfg.atol, cfg.rtol)
            except Exception as e:
                ok, msg = False, f"could not be compared: {type(e).__name__}: {e}"[:300]
            if not ok:
                corr_fail = corr_fail or ("state-mismatch", f"{r['label']}: {name} after forward differs from the "
                                          f"reference's: {msg}")
    state = result.get("state_changed")
    if state and not ref.state_changed:
        names = ", ".join(str(n) for n in state[:4])
        corr_fail = corr_fail or ("state-in-forward", f"forward changed tensors or Python values the module keeps "
                                  f"between calls ({names}): state kept across calls, which the reference does not keep (a "
                                  "call counter or a cached result); scratch memory belongs in forward's own "
                                  "allocations")
    elif state:
        extra = state_beyond_reference(state, ref.state_changed)
        if extra:
            corr_fail = corr_fail or ("state-in-forward", f"forward changed state the reference does not keep "
                                      f"({', '.join(extra[:4])}); the reference updates only "
                                      f"{', '.join(sorted(_state_names(ref.state_changed))[:6]) or 'Python values'}: "
                                      "a call counter beside real state is still a call counter")
    v.trials = {"passed": passed, "run": run}
    shape_skips = [s for s in ref.skipped if s.get("kind") not in ("values", "limited")]
    value_skips = [s for s in ref.skipped if s.get("kind") == "values"]
    for s in ref.skipped:  # the large variant kept to the budget: not above the problem's own sizes, or left out
        if s.get("kind") == "limited":
            v.flags.append(Finding("correctness", "sizes-limited", f"{s['label']}: {s['why']}"[:500]))
    if shape_skips:  # fewer shapes than planned: the verdict says which were not checked, and why
        checked = sum(s["label"] not in VALUE_VARIANTS for s in ref.shapes)
        v.flags.append(Finding("correctness", "shapes-skipped", f"checked at {checked} of "
                               f"{checked + len(shape_skips)} planned shape variants; not at "
                               + "; ".join(f"{s['label']} ({s['why']})" for s in shape_skips)[:1500]))
    if value_skips:  # values outside the problem's domain: nothing a candidate could be checked against
        v.flags.append(Finding("correctness", "values-skipped", "not checked with "
                               + "; ".join(s["why"] for s in value_skips)[:1500]))
    v.max_abs_err, v.max_rel_err = (_finite(max_abs), _finite(max_rel))
    v.kernels = sorted(kernels)
    if launch_fail:
        v.fail("launch", *launch_fail)
    elif corr_fail:
        v.fail("correctness", *corr_fail)
    elif run == 0:
        v.fail("correctness", "no-trials", "no trial ran")


def _state_entry(entry: str) -> str:
    """What a state-change entry ("label: what") names: a tensor's name, or the description of Python state."""
    what = str(entry).split(": ", 1)[-1]
    for tail in (" (written in place", " (its memory or strides"):
        if tail in what:
            return what.split(tail)[0]
    return what


def _is_python_state(what: str) -> bool:
    return "Python object" in what or what.startswith("more than ")


def _state_names(ref_state: list) -> set[str]:
    return {w for w in map(_state_entry, ref_state) if not _is_python_state(w)}


def state_beyond_reference(cand_state: list, ref_state: list) -> list[str]:
    """The candidate's state changes that a stateful reference does not make: tensors of other names (a hidden step
    counter next to BatchNorm's running statistics passed while any reference state excused all candidate state,
    red-teaming 2026-12-06), and Python values unless the reference changes Python values too."""
    names = _state_names(ref_state)
    python = any(_is_python_state(_state_entry(e)) for e in ref_state)
    return [str(e) for e in cand_state
            if not (_state_entry(e) in names or (python and _is_python_state(_state_entry(e))))]


def _judge_timed_calls(v: Verdict, timing: dict, timed_file: Path, ref: Reference, cfg: VerifyConfig) -> None:
    """Whether the timed calls did the verified work (the worker's `_TimedCalls` evidence): every timed
    output matched the first one for the same inputs, those matched the reference, and the audit calls
    hidden among the timed ones launched the candidate's kernels and ran no torch compute."""
    import torch

    v.timed_calls = {"checked": int(timing.get("checked_calls") or 0), "audits": int(timing.get("audits") or 0)}
    skipped = int(timing.get("calls_without_launch") or 0) + int(timing.get("audit_skipped") or 0)
    if skipped:
        v.fail("performance", "launch-skipped-when-timed", f"{skipped} forward calls of the timing phase launched "
               "no kernel of the candidate (work skipped or cached on repeated inputs)")
        return
    if timing.get("audit_ops"):
        ops = ", ".join(str(o) for o in timing["audit_ops"][:8])
        v.fail("performance", "runtime-torch-compute", f"between timed calls, forward computed outside Triton "
               f"kernels: {ops}")
        return
    if timing.get("background"):
        v.fail("performance", "background-work", "the timed calls left work running: "
               + "; ".join(str(b) for b in timing["background"][:3]))
        return
    if timing.get("audit_mutated"):
        v.fail("performance", "input-mutated", "between timed calls, forward modified its inputs in place")
        return
    if timing.get("mismatch"):
        v.fail("performance", "timed-output-mismatch", "timed calls returned different results for the same "
               "inputs: " + "; ".join(str(m) for m in timing["mismatch"][:2]))
        return
    try:
        firsts = torch.load(timed_file, weights_only=True, mmap=True)
        expected = {r["label"]: r["outputs"] for r in ref.outputs}["base"]
        for rec in firsts:
            ok, msg, _, _ = compare(expected[rec["trial"]], rec["output"], cfg.atol, cfg.rtol)
            if not ok:
                v.fail("performance", "timed-output-mismatch", f"timed calls on the inputs of base trial "
                       f"{rec['trial'] + 1} returned a wrong result: {msg}")
                return
    except Exception as e:  # missing, unreadable or malformed evidence: nothing timed is known to be right
        v.fail("performance", "timing-unchecked", f"the timed calls' outputs could not be checked: {e}"[:500])
        return
    if not firsts or not timing.get("audits"):
        v.fail("performance", "timing-unchecked", "the timing phase reported no checked output or no audit call")


def _finite(x: float) -> float | None:
    return x if x == x and x not in (float("inf"), float("-inf")) else None


def _performance(v: Verdict, timing: dict, ref: Reference, cfg: VerifyConfig) -> None:
    t = ref.timing
    v.ref_eager_ms, v.ref_compile_ms = t.get("eager_ms"), t.get("compile_ms")
    v.time_ms = timing.get("time_ms")
    if not v.time_ms or not v.ref_eager_ms:
        v.fail("performance", "timing-failed", "timing did not complete")
        return
    v.speedup = v.ref_eager_ms / v.time_ms
    if v.ref_compile_ms:
        v.speedup_compile = v.ref_compile_ms / v.time_ms
    floor_ms = t.get("io_bytes", 0) / PEAK_BANDWIDTH * 1e3
    wall = timing.get("wall_ms")
    if v.speedup >= cfg.implausible_speedup or v.time_ms < floor_ms:
        # re-timed with full synchronisation: work hidden from the events shows up here
        if wall and wall > 1.5 * v.time_ms + 0.02:
            v.flags.append(Finding("performance", "implausible-speedup",
                                   f"event timing {v.time_ms:.3f} ms but {wall:.3f} ms fully synchronised; "
                                   "reporting the synchronised time"))
            v.time_ms = wall
            v.speedup = v.ref_eager_ms / wall
            v.speedup_compile = v.ref_compile_ms / wall if v.ref_compile_ms else None
        else:
            v.flags.append(Finding("performance", "implausible-speedup",
                                   f"{v.speedup:.1f}x over eager; confirmed by synchronised re-timing "
                                   f"({wall:.3f} ms)" if wall else f"{v.speedup:.1f}x over eager"))
        if v.time_ms < floor_ms:
            v.flags.append(Finding("performance", "below-bandwidth-floor",
                                   f"{v.time_ms:.3f} ms is below the memory-bandwidth floor {floor_ms:.3f} ms"))


def _sandbox_phases(result: dict) -> dict[str, float]:
    """The sandbox's own clock readings (import, first trial), kept only when they are plain numbers:
    diagnostics from inside the sandbox, never part of a verdict's judgement."""
    trials = result.get("trials")
    first = trials[0].get("s") if isinstance(trials, list) and trials and isinstance(trials[0], dict) else None
    out = {"import": result.get("import_s"), "first_trial": first}
    clock = result.get("clock")
    if isinstance(clock, dict):  # the rest of correctness: building models and scanning state, all trials, checks
        out.update({k: clock.get(k) for k in ("setup", "trials", "state_checks")})
    return _seconds(out)


def _run_candidate(src: str, ref: Reference, cfg: VerifyConfig, started: "queue.SimpleQueue[Worker]",
                   note: Callable[[str], None] = lambda phase: None,
                   park: Callable[[Verdict, Worker], None] | None = None) -> Verdict | None:
    """A candidate's verdict. With `park` (`cfg.batch_timing`), a correct one still to be timed is handed to it
    unfinished (stage "timing") with its worker, which waits for the batch's timing window (`_time_together`);
    then None comes back."""
    t0 = time.monotonic()
    try:
        w = started.get_nowait()
    except queue.Empty:
        w = _worker("candidate", cfg)
    waited = time.monotonic() - t0
    parked = False
    try:
        v = _candidate_verdict(w, src, ref, cfg, note, may_park=park is not None)
        v.phases_s = {"worker": round(waited, 3), **v.phases_s}
        if v.stage == "timing":  # parked (only ever with `park`): its worker waits for the batch's window
            park(v, w)
            parked = True
    finally:
        if not parked:
            w.close()
    if parked:
        return None
    note("verified" if v.ok else f"rejected: {v.stage}")
    return v


# Workers of correct candidates waiting for their batch's timing window, across every batch of this process: each
# holds a CUDA context and its host memory, so their number is capped (`_reserve_park`); past the cap a candidate is
# timed at once, as without batch_timing.
_PARKED = 0
_PARKED_LOCK = threading.Lock()


def _park_cap(cfg: VerifyConfig) -> int:
    return 2 * (cfg.pool_size or cfg.max_parallel or 1)


def _reserve_park(cfg: VerifyConfig) -> bool:
    """Take one of the places for a worker waiting for its batch's timing window; False when none is free."""
    global _PARKED
    with _PARKED_LOCK:
        if _PARKED >= _park_cap(cfg):
            return False
        _PARKED += 1
        return True


def _release_parks(n: int) -> None:
    global _PARKED
    with _PARKED_LOCK:
        _PARKED -= n


def _wait_warm(w: Worker, cfg: VerifyConfig) -> float:
    """Let a worker that is still starting finish its warm-up before its job takes the GPU lock; the seconds waited.

    A pool drained faster than it refills hands out workers still importing torch and creating a CUDA context (up
    to ~45 s on a loaded 16-core H100 machine). Warming up inside the shared lock, such a worker held back every
    timing phase waiting for the lock, and every job behind that: in each RL step, 3-9 of 66-78 correctness phases
    spent over 10 s (up to 47 s) outside the candidate's own work (benchmarks/results/rl_lora_sft519_h100_20261207,
    phases.txt).
    A worker that dies or hangs while starting is left to the job's own wait, which reports it."""
    t0 = time.monotonic()
    w.wait_warm(cfg.timeout_s)
    return round(time.monotonic() - t0, 3)


def _candidate_verdict(w: Worker, src: str, ref: Reference, cfg: VerifyConfig,
                       note: Callable[[str], None] = lambda phase: None, may_park: bool = False) -> Verdict:
    import torch

    v = Verdict(device=cfg.device, isolation=w.isolation)
    timed = cfg.times and (bool(ref.timing) or ref.pending)
    d = w.work
    warm_wait = _wait_warm(w, cfg)
    with _gpu_lock(shared=True, device=cfg.device) as lock_s:  # the job starts only when no timing phase runs
        t1 = time.monotonic()
        note("correctness")
        w.dispatch(json.dumps({"device": cfg.device, "time": timed, "atol": cfg.atol, "rtol": cfg.rtol,
                               "guard_imports": cfg.guard_imports,
                               "reps": cfg.timing_reps}), files={"candidate.py": src},
                   inbox={"for_candidate.pt": ref.worker.work / "for_candidate.pt"})
        msg = w.wait_message(cfg.timeout_s) if timed else None
        ready = msg == b"R"
        res = None if ready else w.finish(_time_left(t1, cfg) if timed else cfg.timeout_s)
    v.phases_s = {"warm_wait": warm_wait, "lock": round(lock_s, 3), "correctness": round(time.monotonic() - t1, 3)}
    result = None
    # the evidence counts only as the worker left it: said R (correctness written, waiting, no candidate code running)
    # or ended by its own clean exit. A worker that hung, crashed or hit a limit may have left files the candidate
    # wrote (numpy's ndarray.tofile writes any bytes) in place of its own
    if not ready and not _clean_exit(res):
        _sandbox_failure(v, res)
        v.log_tail = res.stderr_tail[-3000:]
        return v
    if (d / "correct.pt").exists():
        try:
            result = torch.load(d / "correct.pt", weights_only=True, mmap=True)
        except Exception as e:
            v.fail("sandbox", "bad-result", f"the candidate's result could not be read safely: {e}"[:500])
    if result is None:
        if ready:
            w.send(b"S")
            res = w.finish(1)
        if not v.reasons:
            _sandbox_failure(v, res)
            v.log_tail = res.stderr_tail[-3000:]
        return v
    v.phases_s.update(_sandbox_phases(result))
    _judge(v, result, ref, cfg)
    if timed and not v.reasons and may_park and _reserve_park(cfg):  # timed with the batch's others, later
        v.stage = "timing"
        return v
    if timed and not v.reasons:  # the first correct candidate has the baseline timed; the others wait for it
        v.phases_s.update(ensure_reference_timing(ref, cfg))
        timed = bool(ref.timing)
    if v.reasons or not timed:
        if ready:
            w.send(b"S")
        if not v.reasons:
            v.ok, v.stage = True, "done"
        return v
    note("timing")
    with _gpu_lock(patience_s=cfg.timing_patience_s) as lock_s:
        res = _timing_run(w, v, cfg)
    v.phases_s["timing_lock"] = round(lock_s, 3)
    return _timed_verdict(v, w, res, ref, cfg)


def _timing_run(w: Worker, v: Verdict, cfg: VerifyConfig) -> sandbox.SandboxResult:
    """Let a worker waiting after correctness (its R) time its candidate, the GPU held exclusively by the caller."""
    t1 = time.monotonic()
    w.send(b"G")
    res = w.finish(cfg.timeout_s)
    v.phases_s["timing"] = round(time.monotonic() - t1, 3)
    return res


def _timed_verdict(v: Verdict, w: Worker, res: sandbox.SandboxResult, ref: Reference, cfg: VerifyConfig) -> Verdict:
    """Judge what the timing phase left (timing.json, the timed calls' outputs): the verdict of a correct candidate."""
    d = w.work
    tfile = d / "timing.json"
    if not tfile.exists() or not _clean_exit(res):  # as for correct.pt: only what a cleanly ended worker wrote
        _sandbox_failure(v, res)
        v.reasons[-1].stage = v.stage = "performance"
        return v
    timing = json.loads(tfile.read_text())
    _judge_timed_calls(v, timing, d / "timed.pt", ref, cfg)
    if v.reasons:
        return v
    _performance(v, timing, ref, cfg)
    if not v.reasons:
        v.ok, v.stage = True, "done"
    return v


def _time_together(untimed: list[tuple[int, Verdict, "Worker"]], ref: Reference, cfg: VerifyConfig,
                   tell: Callable[[int, str], None]) -> list[tuple[int, Verdict]]:
    """`cfg.batch_timing`: time a batch's correct candidates, and its baseline first if it is still to be timed, in
    one exclusive GPU window (every worker waits at its R, nothing of the candidate running)."""
    if ref.pending and ref.warmed is not None:
        ref.warmed.join(cfg.timeout_s)  # outside the window: the reference's warm-up holds the GPU shared
    out = []
    with _gpu_lock(patience_s=cfg.timing_patience_s) as lock_s:
        base = ensure_reference_timing(ref, cfg, locked=True)
        for n, (i, v, w) in enumerate(untimed):
            v.phases_s.update(base if n == 0 else {})
            if not ref.timing:  # the baseline could not be timed: correct, without a speedup (as one by one)
                w.send(b"S")
                v.ok, v.stage = True, "done"
            else:
                tell(i, "timing")
                v.phases_s["timing_lock"] = round(lock_s, 3)
                v = _timed_verdict(v, w, _timing_run(w, v, cfg), ref, cfg)
            tell(i, "verified" if v.ok else f"rejected: {v.stage}")
            out.append((i, v))
    return out


def verify_batch(problem_src: str, candidates: list[str], config: VerifyConfig | None = None,
                 progress: Callable[[int, str], None] | None = None, reference: ReferenceRun | None = None,
                 on_verdict: Callable[[int, Verdict], None] | None = None, **overrides) -> list[Verdict]:
    """Verify many candidates of one problem: one reference run, candidates in parallel sandboxes.

    `reference`: a `ReferenceRun` of this problem started earlier (it stays open: its owner closes it);
    without it the batch runs its own.

    `progress(i, phase)` is told where candidate i is: "correctness" (compiling and checking it on
    fresh inputs and other shapes), "timing", then "verified" or "rejected: <stage>". It is called
    from worker threads, candidates interleaved; an exception in it is logged, never a verdict.
    `on_verdict(i, verdict)` gets each candidate's final verdict as soon as it is known (in the calling
    thread, in the order the verdicts complete), so a caller can offer the first verified kernel while
    the others are still running. A verdict's `elapsed_s` is the time from the batch's start to it.
    Raises ProblemError when the problem itself is unusable (a usage error, not a verdict).
    """
    def tell(i: int, phase: str) -> None:
        if progress is not None:
            try:
                progress(i, phase)
            except Exception:
                logging.getLogger(__name__).exception("verify_batch progress callback")

    t0 = time.monotonic()
    mech = sandbox.isolation_mechanism()

    def done(i: int, v: Verdict) -> None:
        v.elapsed_s = round(time.monotonic() - t0, 3)
        v.isolation = v.isolation or (mech[0] if mech[0] == "bwrap" else f"none ({mech[1]})")
        verdicts[i] = v
        if on_verdict is not None:
            try:
                on_verdict(i, v)
            except Exception:
                logging.getLogger(__name__).exception("verify_batch on_verdict callback")

    cfg = dataclasses.replace(config or VerifyConfig(), **overrides).resolved()
    if reference is not None and (reference.problem_src != problem_src or reference.cfg.device != cfg.device):
        raise ValueError("the reference run is of another problem or device")
    verdicts: list[Verdict | None] = [None] * len(candidates)
    todo = []
    for i, src in enumerate(candidates):
        findings = check_candidate(src, problem_src) if cfg.static_checks else []
        if not cfg.static_checks:
            try:
                compile(src, "candidate.py", "exec")
            except SyntaxError as e:
                findings = [Finding("parse", "syntax-error", str(e), e.lineno)]
        if findings:
            v = Verdict(device=cfg.device)
            v.stage = findings[0].stage
            v.reasons = findings
            tell(i, f"rejected: {v.stage}")  # never reaches a sandbox
            done(i, v)
        else:
            todo.append(i)
    if todo:
        # candidate sandboxes start warming up while the reference runs
        started: queue.SimpleQueue[Worker] = queue.SimpleQueue()
        for _ in range(min(cfg.max_parallel, len(todo))):
            started.put(_worker("candidate", cfg))
        ref = None
        try:
            t_ref = time.monotonic()
            ref = reference.result() if reference is not None else prepare_reference(problem_src, cfg)
            t_ref = round(time.monotonic() - t_ref, 3)
            untimed: list[tuple[int, Verdict, Worker]] = []  # correct, waiting for the batch's timing window

            def finish(i: int, v: Verdict) -> None:
                v.shapes = ref.shapes
                v.phases_s = {"reference": t_ref, **ref.clock, **v.phases_s}
                done(i, v)

            try:
                with ThreadPoolExecutor(max_workers=min(cfg.max_parallel, len(todo))) as pool:
                    futs = {pool.submit(_run_candidate, candidates[i], ref, cfg, started,
                                        lambda phase, i=i: tell(i, phase),
                                        (lambda v, w, i=i: untimed.append((i, v, w))) if cfg.batch_timing else None
                                        ): i for i in todo}
                    for f in as_completed(futs):
                        if (v := f.result()) is not None:
                            finish(futs[f], v)
                if untimed:
                    for i, v in _time_together(sorted(untimed, key=lambda t: t[0]), ref, cfg, tell):
                        finish(i, v)
            finally:
                for _, _, w in untimed:
                    w.close()
                _release_parks(len(untimed))
        finally:
            while not started.empty():
                started.get().close()
            if ref is not None and reference is None:
                ref.close()
    else:
        parse_problem(problem_src)
    assert all(v is not None for v in verdicts)
    return verdicts  # type: ignore[return-value]


def verify(problem_src: str, candidate_src: str, config: VerifyConfig | None = None, **overrides) -> Verdict:
    """Verify one candidate against one problem. See `VerifyConfig` for the knobs."""
    return verify_batch(problem_src, [candidate_src], config, **overrides)[0]
