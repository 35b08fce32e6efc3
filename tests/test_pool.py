"""Warm worker pool: faster start, same isolation (each sandbox runs one job and dies)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import CORPUS, ROOT
from verifier import VerifyConfig, verify, verify_batch
from verifier.pool import POOL

PROBLEM = (CORPUS / "problems" / "relu.py").read_text()
HONEST = (ROOT / "examples" / "relu_candidate.py").read_text()

# Plants files everywhere it can, and fails if it finds files planted by an earlier candidate.
PLANTER = HONEST.replace("    def forward(self, x):\n", textwrap.indent(textwrap.dedent("""
    def forward(self, x):
        import os
        for p in ("/sandbox/work/planted", "/tmp/planted", "/dev/shm/planted", "/sandbox/inbox/planted"):
            if os.path.exists(p):
                raise RuntimeError("found a file planted by another verification: " + p)
            try:
                open(p, "w").write("x")
            except OSError:
                pass
"""), "    ")[1:], 1)


def test_pooled_verifications_do_not_see_each_other():
    # one forward call per verification (the planter would find its own file on a second call): no value variants,
    # no large trial
    cfg = VerifyConfig(device="cpu", pool=True, static_checks=False, guard_imports=False, trials=1, perturb=0,
                       ordered=False, values=False, larger=False)
    first = verify(PROBLEM, PLANTER, cfg)
    assert first.ok, first.summary()          # it planted, and found nothing
    again = verify_batch(PROBLEM, [PLANTER, PLANTER], cfg)
    assert all(v.ok for v in again), [v.summary() for v in again]


def test_pool_workers_are_single_use():
    cfg = VerifyConfig(device="cpu", pool=True).resolved()
    assert verify(PROBLEM, HONEST, cfg).ok
    idle = [w for ws in POOL._idle.values() for w in ws]
    assert idle and all(w.alive() and not w.closed for w in idle)  # fresh replacements, not used ones
    # every idle worker is waiting for its first job: none has a job.json yet
    assert all(not (w.work / "job.json").exists() for w in idle)
    POOL.shutdown()
    assert all(w.closed and not w.alive() for w in idle)  # shutdown kills idle workers


def test_venv_under_tmp_runs_in_the_sandbox(tmp_path):
    """A Python installation under /tmp must stay visible over the sandbox's private /tmp."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    code = ("import sys, tempfile, pathlib; from verifier import sandbox; d = pathlib.Path(tempfile.mkdtemp()); "
            "r = sandbox.run([sys.executable, '-c', 'print(6 * 7)'], d); print(r.stdout_tail.strip(), r.stderr_tail)")
    p = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert p.stdout.startswith("42"), p.stdout + p.stderr


def test_gpu_lock_is_reader_writer(tmp_path, monkeypatch):
    """Correctness phases share the GPU; a timing phase excludes them (checked with real flock)."""
    import threading
    import time

    from verifier.runner import _gpu_lock

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")  # the lock files are per GPU: gpu0.*
    events = []
    with _gpu_lock(shared=True):
        t = threading.Thread(target=lambda: _hold(True, lambda: events.append("got")))
        t.start()
        t.join()
        assert events == ["got"]  # two readers at once
        # each thread notes its turn while it holds the lock (noted after release, the order could flip)
        writer = threading.Thread(target=lambda: _hold(False, lambda: events.append("writer")))
        writer.start()
        time.sleep(0.3)
        assert "writer" not in events  # the writer waits for the reader
    writer.join(5)
    assert events[-1] == "writer"


def test_gpu_lock_lets_a_waiting_writer_in_before_new_readers(tmp_path, monkeypatch):
    """Readers that keep overlapping must not starve a timing phase: once a writer waits, a new reader
    queues behind it (without the turnstile flock hands the lock to the reader, every time)."""
    import threading
    import time

    from verifier.runner import _gpu_lock

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")  # the lock files are per GPU: gpu0.*
    events = []
    with _gpu_lock(shared=True):
        # each thread notes its turn while it holds the lock (noted after release, the order could flip)
        writer = threading.Thread(target=lambda: _hold(False, lambda: events.append("writer")))
        writer.start()
        _wait_until_gate_closed(tmp_path / "tritonrl" / "gpu0.gate")  # the writer waits, holding the turnstile
        reader = threading.Thread(target=lambda: _hold(True, lambda: events.append("reader")))
        reader.start()
        time.sleep(0.3)
        assert events == []  # the new reader waits behind the writer, the writer behind the first reader
    writer.join(5)
    reader.join(5)
    assert events == ["writer", "reader"]


def test_a_patient_writer_lets_new_readers_in_until_its_patience_ends(tmp_path, monkeypatch):
    """A trainer's timing phase (`timing_patience_s`) waits for the correctness phases to end of themselves: while
    it is patient, new readers still come in (its batch of timings runs once they are done, not once per timing);
    after its patience it closes the turnstile like any writer, so it is never starved."""
    import threading
    import time

    from verifier.runner import _gpu_lock

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    events = []
    first_done = threading.Event()

    def first_reader():
        with _gpu_lock(shared=True):
            first_done.wait(10)

    r1 = threading.Thread(target=first_reader)
    r1.start()
    time.sleep(0.2)
    writer = threading.Thread(target=lambda: _hold_patient(30.0, lambda: events.append("writer")))
    writer.start()
    time.sleep(0.3)
    got = threading.Event()
    second_done = threading.Event()

    def second_reader():
        with _gpu_lock(shared=True):
            got.set()
            events.append("reader")
            second_done.wait(10)

    r2 = threading.Thread(target=second_reader)
    r2.start()
    assert got.wait(5), "a new reader waited behind a patient writer"
    first_done.set()
    r1.join(5)
    time.sleep(0.3)
    assert events == ["reader"]  # the second reader still holds the GPU: the writer waits for it too
    second_done.set()
    r2.join(5)
    writer.join(5)
    assert events == ["reader", "writer"]

    # patience spent: the writer closes the turnstile, and a reader arriving then waits behind it
    events.clear()
    with _gpu_lock(shared=True):
        writer = threading.Thread(target=lambda: _hold_patient(0.3, lambda: events.append("writer")))
        writer.start()
        time.sleep(0.6)  # past its patience (while patient it takes the turnstile too, for a moment each try)
        _wait_until_gate_closed(tmp_path / "tritonrl" / "gpu0.gate")
        reader = threading.Thread(target=lambda: _hold(True, lambda: events.append("reader")))
        reader.start()
        time.sleep(0.3)
        assert events == []
    writer.join(5)
    reader.join(5)
    assert events == ["writer", "reader"]


def _hold_patient(patience_s: float, then) -> None:
    from verifier.runner import _gpu_lock

    with _gpu_lock(patience_s=patience_s):
        then()


def _wait_until_gate_closed(gate, timeout_s: float = 30.0) -> None:
    """Until someone holds the turnstile file exclusively (a fixed sleep was flaky on a loaded machine)."""
    import fcntl
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if gate.exists():
            with open(gate) as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return
                fcntl.flock(f, fcntl.LOCK_UN)
        time.sleep(0.01)
    raise AssertionError("the writer never reached the turnstile")


def _hold(shared: bool, then) -> None:
    from verifier.runner import _gpu_lock

    with _gpu_lock(shared=shared):
        then()


def test_paused_pool_starts_no_refills_until_resumed():
    """While a trainer generates, used workers are not replaced; on resume the pool fills up again."""
    import time

    cfg = VerifyConfig(device="cpu", pool=True, pool_size=1, trials=1, perturb=0).resolved()
    POOL.shutdown()
    cand = lambda: [w for k, ws in POOL._idle.items() if k[0] == "candidate" for w in ws]  # noqa: E731
    with POOL.paused():
        assert verify(PROBLEM, HONEST, cfg).ok  # get() still serves: a worker started on demand
        time.sleep(1.0)
        assert cand() == []                     # ...but its replacement waits for the pause to end
    deadline = time.monotonic() + 60
    while not cand() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(cand()) == 1
    with POOL.paused():                         # entering waits for the starting worker to be warm
        assert all(w.warm for w in cand())
    POOL.shutdown()


def test_reference_pool_keeps_one_warm_worker_per_problem_verified_at_once():
    from verifier.runner import prewarm

    POOL.shutdown()
    cfg = VerifyConfig(device="cpu", pool=True, pool_size=1, reference_pool=2).resolved()
    prewarm(cfg)
    kinds = {key[0]: len(ws) for key, ws in POOL._idle.items() if ws}
    assert kinds == {"reference": 2, "candidate": 1}, kinds
    # two problems verified at once, each on its own reference worker
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as ex:
        vs = list(ex.map(lambda _: verify_batch(PROBLEM, [HONEST], cfg)[0], range(2)))
    assert all(v.ok for v in vs), [v.summary() for v in vs]
    POOL.shutdown()


def test_prewarm_without_waiting_starts_the_workers_and_a_pause_warms_them():
    """training.rl starts its sandboxes before the trainer's setup and goes on: nothing reads their ready pipes
    until the first generation's pause, which lets them finish warming."""
    from verifier.runner import prewarm

    POOL.shutdown()
    cfg = VerifyConfig(device="cpu", pool=True, pool_size=2, reference_pool=1).resolved()
    prewarm(cfg, wait=False)
    idle = {key[0]: ws for key, ws in POOL._idle.items() if ws}
    assert {k: len(ws) for k, ws in idle.items()} == {"reference": 1, "candidate": 2}
    assert not any(w.warm for ws in idle.values() for w in ws)  # nobody has read their ready pipes: it did not wait
    with POOL.paused():
        assert all(w.warm for ws in idle.values() for w in ws)
    assert verify(PROBLEM, HONEST, cfg).ok
    POOL.shutdown()
