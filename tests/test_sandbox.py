"""Layer 3 on hostile code: each run ends in a named outcome and nothing reaches the host."""
from __future__ import annotations

import shutil
import socket
import subprocess
import textwrap
import threading
import time
from pathlib import Path

import pytest

from conftest import CORPUS
from verifier import sandbox, verify

HOSTILE = CORPUS / "hostile"
BWRAP = sandbox.isolation_mechanism()[0] == "bwrap"
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bubblewrap unavailable: " + sandbox.isolation_mechanism()[1])


def run_script(tmp_path: Path, code: str, *args: str, **kw) -> sandbox.SandboxResult:
    (tmp_path / "s.py").write_text(textwrap.dedent(code))
    return sandbox.run(["python3", "s.py", *args], tmp_path, **kw)


def survivors() -> list[str]:
    """Processes of a `run_script` script still in the table: those whose command line ends in its file (a substring
    test also matched a pytest run given tests/test_races.py or tests/test_corpus.py)."""
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if line.split()[-1:] == ["s.py"]]


def test_isolation_is_real_here():
    assert BWRAP, "CI must run the sandbox with bubblewrap, not the fallback"


@needs_bwrap
def test_hang_is_killed_with_its_whole_tree(tmp_path):
    code = """
        import os, time
        for _ in range(3):
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    open(f"/sandbox/work/alive-{os.getpid()}", "w").close()
                    time.sleep(600)
                os._exit(0)
        while True:
            pass
    """
    t0 = time.monotonic()
    r = run_script(tmp_path, code, limits=sandbox.Limits(timeout_s=3))
    assert r.timed_out and time.monotonic() - t0 < 15
    assert list(tmp_path.glob("alive-*")), "the grandchildren should have started"
    # SIGKILLed processes leave the table once reaped; on a loaded machine that took longer than 0.5 s
    deadline = time.monotonic() + 5
    while survivors() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not survivors(), "a process outlived the sandbox"


@needs_bwrap
def test_double_fork_setsid_survivor_dies_when_main_exits(tmp_path):
    r = run_script(tmp_path, """
        import os, sys, time
        if os.fork():
            sys.exit(0)
        os.setsid()
        time.sleep(600)
    """, limits=sandbox.Limits(timeout_s=30))
    assert r.returncode == 0 and not r.timed_out and r.duration_s < 10
    time.sleep(0.3)
    assert not survivors()


def test_segfault_is_a_named_crash(tmp_path):
    r = run_script(tmp_path, "import ctypes\nctypes.string_at(0)\n")
    assert r.signal_name == "SIGSEGV"


def test_stdout_flood_keeps_only_a_tail(tmp_path):
    r = run_script(tmp_path, "import sys\nfor _ in range(1600):\n    sys.stdout.write('x' * 65536)\nprint('END')\n")
    assert r.returncode == 0 and len(r.stdout_tail) < 40_000 and r.stdout_tail.rstrip().endswith("END")
    assert "bytes dropped" in r.stdout_tail


def test_unbounded_allocation_hits_the_memory_limit(tmp_path):
    r = run_script(tmp_path, "xs = []\nwhile True:\n    xs.append(bytearray(64 << 20))\n",
                   limits=sandbox.Limits(timeout_s=60, memory_bytes=1 << 30))
    assert r.memory_exceeded or (r.returncode != 0 and "MemoryError" in r.stderr_tail)


def test_resident_memory_watch_kills_trees_without_an_address_space_limit(tmp_path):
    """GPU sandboxes have no RLIMIT_AS (CUDA reserves huge ranges): the shared watch must end a tree whose
    resident memory passes the limit, and one watch thread serves several sandboxes at once."""
    idle = [sandbox.Sandbox(["python3", "-c", "import time; time.sleep(30)"], tmp_path, device="cuda").start()
            for _ in range(3)]
    hog = "xs = []\nwhile True:\n    xs.append(b'x' * (64 << 20))\n"  # written bytes: resident, not just reserved
    r = sandbox.run(["python3", "-c", hog], tmp_path, device="cuda",
                    limits=sandbox.Limits(timeout_s=60, memory_bytes=512 << 20))
    watchers = [t for t in threading.enumerate() if t.name == "tritonrl-memwatch"]
    for b in idle:
        b.kill()
        b.wait(5)
    assert r.memory_exceeded and not r.timed_out and r.peak_rss > 512 << 20, r
    assert len(watchers) == 1


@needs_bwrap
def test_no_writes_outside_the_private_dir(tmp_path):
    home_marker = Path.home() / "tritonrl-pwned"
    repo_marker = Path(__file__).resolve().parent / "PWNED"
    r = run_script(tmp_path, f"""
        import os
        for p in [{str(home_marker)!r}, {str(repo_marker)!r}, "/etc/pwned", "/usr/pwned", "/sandbox/lib/pwned"]:
            try:
                open(p, "w").write("x")
                print("WROTE", p)
            except OSError as e:
                print("DENIED", p, e.errno)
        open("/tmp/scratch", "w").write("ok")      # private tmpfs: allowed, vanishes
        open("/sandbox/work/mine", "w").write("ok")  # its own dir: allowed
    """)
    assert r.returncode == 0, r.stderr_tail
    assert "WROTE" not in r.stdout_tail and r.stdout_tail.count("DENIED") == 5
    assert not home_marker.exists() and not repo_marker.exists() and not Path("/etc/pwned").exists()
    assert (tmp_path / "mine").exists()


@needs_bwrap
def test_host_files_are_invisible(tmp_path):
    secret = Path(__file__).resolve()  # the repo (a user's workspace) is not mounted
    r = run_script(tmp_path, f"import os\nprint(os.path.exists({str(secret)!r}), os.path.exists('/root/.ssh'))\n")
    assert r.stdout_tail.split() == ["False", "False"], r.stdout_tail + r.stderr_tail


@needs_bwrap
def test_no_network_not_even_host_loopback(tmp_path):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    got = []
    threading.Thread(target=lambda: got.append(srv.accept()), daemon=True).start()
    r = run_script(tmp_path, """
        import socket, sys
        try:
            socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
            print("CONNECTED")
        except OSError as e:
            print("REFUSED", e)
        try:
            socket.create_connection(("1.1.1.1", 80), timeout=3)
            print("INTERNET")
        except OSError as e:
            print("NO-ROUTE", e)
    """, str(port))
    srv.close()
    assert "CONNECTED" not in r.stdout_tail and "INTERNET" not in r.stdout_tail and not got


@needs_bwrap
def test_killing_the_parent_does_not_reach_the_supervisor(tmp_path):
    r = run_script(tmp_path, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nos.kill(1, signal.SIGKILL)\n"
                   "print('still here')\n")
    assert r.returncode is not None  # and this test process is alive to check it


def test_environment_carries_no_secrets(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    r = run_script(tmp_path, "import os\nprint(sorted(os.environ))\n")
    assert "OPENAI_API_KEY" not in r.stdout_tail and "sk-secret" not in r.stdout_tail


@pytest.mark.parametrize("script", sorted(HOSTILE.glob("*.py")) if HOSTILE.exists() else [], ids=lambda p: p.stem)
def test_hostile_corpus_ends_cleanly(tmp_path, script):
    shutil.copy(script, tmp_path / "s.py")
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    r = sandbox.run(["python3", "s.py", str(srv.getsockname()[1])], tmp_path,
                    limits=sandbox.Limits(timeout_s=5, memory_bytes=1 << 30, workdir_bytes=256 << 20))
    srv.close()
    assert r.returncode is not None and r.duration_s < 30
    assert not Path("/work/main/PWNED").exists() and not (Path.home() / "pwned").exists()


def test_writes_to_the_work_dir_are_bounded(tmp_path):
    """The work dir is the one writable host path; files under the per-file limit, one after another,
    would fill the disk: the memory watch measures the dir and kills the tree past its limit."""
    shutil.copy(HOSTILE / "fill_workdir.py", tmp_path / "s.py")
    r = sandbox.run(["python3", "s.py"], tmp_path, limits=sandbox.Limits(timeout_s=60, workdir_bytes=128 << 20))
    assert r.workdir_exceeded and not r.timed_out and not r.memory_exceeded, r
    assert 128 << 20 < r.workdir_bytes < 1 << 30 and r.duration_s < 30


needs_shm = pytest.mark.skipif(not sandbox._memory_backed(Path("/dev/shm")), reason="/dev/shm is not tmpfs here")


@needs_bwrap
@needs_shm
def test_a_work_dir_on_tmpfs_counts_as_memory():
    """TRITONRL_TMPDIR=/dev/shm puts work dirs in memory: files written there are memory the process's
    resident size does not show, and count against the memory limit."""
    import tempfile

    d = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="tritonrl-test-"))
    try:
        shutil.copy(HOSTILE / "fill_workdir.py", d / "s.py")
        r = sandbox.run(["python3", "s.py"], d, limits=sandbox.Limits(timeout_s=60, memory_bytes=512 << 20))
        assert r.memory_exceeded and r.workdir_in_memory and r.peak_rss > 512 << 20, r
        assert r.workdir_bytes > 256 << 20
    finally:
        shutil.rmtree(d)


# --- the same hostile behaviour inside a candidate, through the whole verifier -----------------------
# Static rules (and the worker's import guard) would reject all of these before they run; static_checks=False and
# guard_imports=False prove the sandbox
# layer still ends each in a verdict naming what happened (and that the next verification is fine).

PROBLEM = (CORPUS / "problems" / "relu.py")


def hostile_candidate(body: str) -> str:
    return textwrap.dedent("""
        import torch, torch.nn as nn, triton, triton.language as tl
        import os, sys, time, ctypes, signal

        @triton.jit
        def k(x, y, n, B: tl.constexpr):
            o = tl.program_id(0) * B + tl.arange(0, B)
            tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)

        class ModelNew(nn.Module):
            def forward(self, x):
                %s
                y = torch.empty_like(x)
                k[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), B=256)
                return y
    """) % body


@pytest.mark.parametrize("body,rule", [
    ("while True: pass", "timeout"),
    ("ctypes.string_at(0)", "crash"),
    ("os._exit(3)", "exit"),
    ("xs = [bytearray(1 << 30) for _ in range(64)]", "memory"),
    ("os.kill(os.getpid(), signal.SIGKILL)", "crash"),
    ("raise RuntimeError('boom')", "forward-error"),
])
def test_hostile_candidates_get_sandbox_verdicts(body, rule):
    v = verify(PROBLEM.read_text(), hostile_candidate(body), static_checks=False, guard_imports=False, timeout_s=20,
               memory_bytes=2 << 30, trials=1, perturb=0)
    assert not v.ok and v.stage == "sandbox" and v.reasons[0].rule == rule, v.summary()


@needs_shm
def test_files_written_to_a_work_dir_in_memory_are_a_memory_verdict(monkeypatch):
    monkeypatch.setenv("TRITONRL_TMPDIR", "/dev/shm")
    body = "[open(f'f{i}', 'wb').write(b'x' * (64 << 20)) for i in range(1 << 10)]"
    v = verify(PROBLEM.read_text(), hostile_candidate(body), static_checks=False, guard_imports=False, timeout_s=60,
               memory_bytes=1 << 30, trials=1, perturb=0)
    assert not v.ok and v.stage == "sandbox" and v.reasons[0].rule == "memory", v.summary()
    assert "work directory on tmpfs" in v.reasons[0].message


def test_torch_compute_hidden_in_the_launch_path_is_caught_at_runtime():
    """A grid callable runs inside Triton's launch path: torch compute there (here writing the answer while
    the kernel stores nothing) is logged like any other op, not excused as the interpreter's own work.
    Static rules reject it first; with them off the launch layer must still fail it."""
    src = textwrap.dedent("""
        import torch, torch.nn as nn, triton, triton.language as tl

        @triton.jit
        def k(x, y, n, B: tl.constexpr):
            o = tl.program_id(0) * B + tl.arange(0, B)
            tl.store(y + o, tl.load(x + o, mask=o < 0), mask=o < 0)

        def grid_of(x, y):
            def g(meta):
                y.copy_(x * (x > 0))
                return (1,)
            return g

        class ModelNew(nn.Module):
            def forward(self, x):
                y = torch.empty_like(x)
                k[grid_of(x, y)](x, y, x.numel(), B=256)
                return y
    """)
    v = verify(PROBLEM.read_text(), src, static_checks=False, trials=1, perturb=0, ordered=False)
    assert not v.ok and v.stage == "launch" and v.rules == ["runtime-torch-compute"], v.summary()
    assert "aten.mul" in v.reasons[0].message


@pytest.mark.parametrize("name,read", [("relu__tolist_python_loop.py", "Tensor.tolist"),
                                       ("relu__array_module_buffer.py", "Tensor.tolist"),
                                       ("relu__numpy_view_in_place.py", "Tensor.numpy")])
def test_python_compute_on_a_host_copy_is_caught_at_runtime(name, read):
    """Static rules reject these first; without them, the result computed in plain Python on a copy of the
    tensor's memory (a list, a buffer, a numpy view written in place) runs no ATen op, and the forward's
    log of host reads still catches it."""
    src = (CORPUS / "cheats" / name).read_text()
    # guard_imports=False: the worker's import guard refuses `import array` / numpy first (tested in test_corpus.py)
    v = verify(PROBLEM.read_text(), src, static_checks=False, guard_imports=False, trials=1, perturb=0, ordered=False)
    assert not v.ok and v.stage == "launch" and v.rules == ["runtime-torch-compute"], v.summary()
    assert read in v.reasons[0].message


def test_trial_inputs_cannot_be_predicted_from_the_construction_seed():
    """The candidate is built under the reference's construction seed (same weights); the trial inputs come
    from a seed that never leaves the reference's sandbox. With static rules off (they forbid reading the seed),
    a candidate that redraws the inputs from the construction seed in __init__ and looks its answers up fails."""
    cheat = (CORPUS / "cheats" / "relu__predict_inputs_from_seed.py").read_text()
    # larger=False: the cheat's table has no entry for the large trial's shape (a KeyError there, refused as a
    # forward error, before the wrong answers this test is about)
    v = verify(PROBLEM.read_text(), cheat, static_checks=False, device="cpu", trials=2, larger=False)
    assert not v.ok and v.stage == "correctness", v.summary()


def test_a_gpu_out_of_memory_is_an_inconclusive_rejection(tmp_path):
    """A worker that dies of torch's OutOfMemoryError on a GPU (shared with the trainer and other verifications: an
    RL run saw it in the timing phase's own 256 MiB allocation) is rejected with its own rule, which says nothing
    about the kernel (a trainer leaves it unscored); on a CPU the same exit is an ordinary one. Never verified."""
    from verifier.runner import _sandbox_failure
    from verifier.verdict import Verdict

    res = run_script(tmp_path, """
        import torch
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a total capacity "
                                     "of 79.18 GiB of which 612.00 MiB is free.")
    """)
    assert res.returncode == 1
    gpu, cpu = Verdict(device="cuda"), Verdict(device="cpu")
    _sandbox_failure(gpu, res)
    _sandbox_failure(cpu, res)
    assert not gpu.ok and gpu.rules == ["gpu-out-of-memory"] and gpu.inconclusive
    assert "612.00 MiB is free" in gpu.reasons[0].message
    assert not cpu.ok and cpu.rules == ["exit"] and not cpu.inconclusive
    gpu.fail("correctness", "output-mismatch", "and wrong")  # any other reason makes it a verdict on the kernel
    assert not gpu.inconclusive
