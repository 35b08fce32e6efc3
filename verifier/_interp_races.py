"""Cross-program races under Triton's interpreter (CPU verification), installed by the candidate worker.

The interpreter runs a launch's programs one after another, in grid order; a GPU runs them at once, in any order. A
kernel whose result depends on that order is right under the interpreter and wrong (or right only sometimes) on a
GPU: a sum accumulated with a plain load and store into one element by every program, a program that reads what an
earlier one stored (a carry chained from block to block), two programs storing different values to one element, a
program overwriting what an earlier one read. Within one launch, plain loads and stores are tracked per element
address, with the program that touched them; a store that leaves an element's value as it was changes nothing and
is not counted. A launch that uses atomics is not judged (atomics are how programs share memory on purpose: a lock
or a semaphore guarding plain loads and stores is a correct pattern this tracking cannot tell apart). Memory that
only one program touches, the common case, is never a finding.

Trusted code: it runs only on the interpreter's own arrays. The worker clears `findings` before each trial's forward
and reads them after it."""
from __future__ import annotations

import numpy as np

LIMIT = 1 << 22  # element accesses tracked per launch; past it the launch is not judged (CPU sizes stay far below)
MULTI = -1       # an element that several programs read

findings: list[str] = []


class _Launch:
    def __init__(self, grid: tuple[int, int, int]) -> None:
        self.grid = grid
        self.program = 0
        self.writer: dict[int, int] = {}  # element address -> the program whose store last changed it
        self.reader: dict[int, int] = {}  # element address -> the program that read it, or MULTI
        self.accesses = 0
        self.judged = True  # False once an atomic runs or the accesses pass LIMIT
        self.found = False  # one finding per launch is enough

    def name(self, p: int) -> str:
        _, ny, nz = self.grid
        return f"({p // (ny * nz)}, {p // nz % ny}, {p % nz})"

    def report(self, text: str) -> None:
        if not self.found:
            self.found = True
            findings.append(text + " (Triton's interpreter runs a launch's programs one after another, in order; a GPU "
                                   "runs them at once, in any order)")


_launch: _Launch | None = None


def _accessed(ptrs, mask) -> tuple[np.ndarray, np.ndarray]:
    """(every address of the access, flat; which of them the mask lets through)."""
    a = np.asarray(ptrs.data).reshape(-1)
    return a, np.broadcast_to(np.asarray(mask.data, dtype=bool), np.shape(ptrs.data)).reshape(-1)


def _counted(n: int) -> bool:
    L = _launch
    if L is None or not L.judged or L.found:
        return False
    L.accesses += n
    if L.accesses > LIMIT:
        L.judged = False
        L.writer.clear()
        L.reader.clear()
        return False
    return True


def _on_load(ptrs, mask) -> None:
    addrs, m = _accessed(ptrs, mask)
    addrs = addrs[m]
    if not addrs.size or not _counted(addrs.size):
        return
    L, p = _launch, _launch.program
    keys = set(addrs.tolist())
    for a in L.writer.keys() & keys:
        q = L.writer[a]
        if q != p:
            L.report(f"program {L.name(p)} loads an element that program {L.name(q)} stored in the same launch: on "
                     "a GPU what it reads depends on which of them runs first")
            return
    reader = L.reader
    for a in keys:
        q = reader.get(a)
        if q is None:
            reader[a] = p
        elif q != p:
            reader[a] = MULTI


def _on_store(builder, load, ptrs, value, mask) -> None:
    addrs, m = _accessed(ptrs, mask)
    if not m.any() or not _counted(int(m.sum())):
        return
    L, p = _launch, _launch.program
    # what is there now, read with the interpreter's own load (not tracked): a store of the same value changes nothing
    old = np.asarray(load(builder, ptrs, mask, None, None, False).data)
    new = np.broadcast_to(np.asarray(value.data), old.shape).astype(old.dtype, copy=False)
    same = old == new
    if np.issubdtype(old.dtype, np.floating):
        same |= np.isnan(old) & np.isnan(new)
    changed = addrs[m & ~same.reshape(-1)].tolist()
    for a in changed:
        q = L.writer.get(a)
        if q is not None and q != p:
            L.report(f"programs {L.name(q)} and {L.name(p)} store different values to the same element in the same "
                     "launch, without atomics: on a GPU which of them lands last is a race")
            return
        r = L.reader.get(a)
        if r is not None and r != p:
            who = "several programs" if r == MULTI else f"program {L.name(r)}"
            L.report(f"program {L.name(p)} overwrites an element that {who} loaded in the same launch: on a GPU a "
                     "reader may see the new value")
            return
        L.writer[a] = p


def install() -> None:
    """Patch the interpreter's builder (idempotent)."""
    from triton.runtime import interpreter as I

    if getattr(I, "_tritonrl_races", False):
        return
    I._tritonrl_races = True
    B = I.InterpreterBuilder
    set_grid_dim, set_grid_idx = B.set_grid_dim, B.set_grid_idx
    load, store = B.create_masked_load, B.create_masked_store

    def grid_dim(self, nx, ny, nz):
        global _launch
        _launch = _Launch((int(nx), int(ny), int(nz)))
        return set_grid_dim(self, nx, ny, nz)

    def grid_idx(self, x, y, z):
        set_grid_idx(self, x, y, z)
        if _launch is not None:
            _, ny, nz = _launch.grid
            _launch.program = (int(x) * ny + int(y)) * nz + int(z)

    def masked_load(self, ptrs, mask, other, cache_policy, is_volatile):
        _on_load(ptrs, mask)
        return load(self, ptrs, mask, other, cache_policy, is_volatile)

    def masked_store(self, ptrs, value, mask, cache_policy):
        _on_store(self, load, ptrs, value, mask)
        return store(self, ptrs, value, mask, cache_policy)

    B.set_grid_dim, B.set_grid_idx = grid_dim, grid_idx
    B.create_masked_load, B.create_masked_store = masked_load, masked_store
    for name in [n for n in vars(B) if n.startswith("create_atomic")]:
        B_fn = getattr(B, name)

        def atomic(self, *args, _fn=B_fn, **kwargs):
            if _launch is not None:
                _launch.judged = False
            return _fn(self, *args, **kwargs)

        setattr(B, name, atomic)
