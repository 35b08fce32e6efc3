"""Cross-program races under Triton's interpreter (CPU verification), installed by the candidate worker.

The interpreter runs a launch's programs one after another, in grid order; a GPU runs them at once, in any order. A
kernel whose result depends on that order is right under the interpreter and wrong (or right only sometimes) on a
GPU: a sum accumulated with a plain load and store into one element by every program, a program that reads what an
earlier one stored (a carry chained from block to block), two programs storing different values to one element, a
program overwriting what an earlier one read. Within one launch, plain loads and stores are tracked per element
address, with the program that touched them; a store that leaves an element's value as it was changes nothing and
is not counted. Memory that only one program touches, the common case, is never a finding.

Atomics: programs may update one element atomically together (a split-K sum with `atomic_add`), but an element
that one program updates atomically and another loads or stores plainly in the same launch is a race (an atomic read
of a carry, a plain store after an atomic read: lost updates). A program that acquired a lock (an `atomic_cas` that
changed the lock's value), as in Triton's layer-norm backward tutorial, may share plain memory with other programs
that acquired one: this tracking cannot tell a correct lock from a wrong one (an accumulation under a lock is right, a
carry handed on under a lock is not), so it trusts both sides. No other atomic is a synchronisation here (a no-op
`atomic_xchg` or `atomic_add` would otherwise excuse any race), so a decoupled look-back that waits on a flag and "the
last program to bump a counter reduces the others' partials" are reported: known false positives.

Memory is tracked in cells of the smallest element size the launch has accessed so far (an element of a larger
type covers several cells), so a value stored as one type and read back through a view of another, at another
address, is seen (red-teaming, 2026-12-06: a float32 carry read as the high half of an int64 slot). A GPU faults on
a misaligned access, so elements are naturally aligned and cells are exact; a launch with one element size keeps one
cell per element, as before.

A launch that touches more than LIMIT distinct elements is a finding (too large to check here; CPU problems are
shrunk far below it), never a pass unchecked.

Trusted code: it runs only on the interpreter's own arrays. The worker clears `findings` before each trial's forward
and reads them after it."""
from __future__ import annotations

import numpy as np

LIMIT = 1 << 22  # distinct elements tracked per launch (CPU inputs are at most 1 << 16 elements, parameters 1 << 22)
MULTI = -1       # an element that several programs read

findings: list[str] = []


class _Launch:
    def __init__(self, grid: tuple[int, int, int]) -> None:
        self.grid = grid
        self.program = 0
        # element address -> (the program whose store last changed it, whether it had synchronised then)
        self.writer: dict[int, tuple[int, bool]] = {}
        # element address -> (the program that read it, or MULTI; whether every reader had synchronised)
        self.reader: dict[int, tuple[int, bool]] = {}
        self.atomic: dict[int, int] = {}  # element address -> the program that updated it atomically, or MULTI
        self.synced: set[int] = set()     # programs that acquired a lock (an atomic_cas that changed its value)
        self.found = False  # one finding per launch is enough
        self.cell = 0       # bytes per cell: the smallest element size accessed so far (0: nothing yet)

    def cells(self, addrs: np.ndarray, size: int) -> np.ndarray:
        """The cells that elements of `size` bytes at byte addresses `addrs` cover. A smaller element size than any
        before splits every cell recorded so far (rare: a launch mixes a few element sizes at most)."""
        if not self.cell or size < self.cell:
            if self.cell:
                k = self.cell // size
                for d in (self.writer, self.reader, self.atomic):
                    split = {c * k + j: v for c, v in d.items() for j in range(k)}
                    d.clear()
                    d.update(split)
            self.cell = size
        first = addrs.astype(np.uint64, copy=False) // np.uint64(self.cell)  # every load and store: no copy
        n = max(1, size // self.cell)
        return first if n == 1 else (first[:, None] + np.arange(n, dtype=np.uint64)).reshape(-1)

    def name(self, p: int) -> str:
        _, ny, nz = self.grid
        return f"({p // (ny * nz)}, {p // nz % ny}, {p % nz})"

    def report(self, text: str, why: bool = True) -> None:
        if not self.found:
            self.found = True
            findings.append(text + (" (Triton's interpreter runs a launch's programs one after another, in order; a "
                                    "GPU runs them at once, in any order)" if why else ""))

    def too_large(self) -> bool:
        if len(self.writer) + len(self.reader) + len(self.atomic) <= LIMIT:
            return False
        self.report(f"a launch touches more than {LIMIT} distinct elements: too many to check for cross-program "
                    "races under the interpreter", why=False)
        self.writer.clear()
        self.reader.clear()
        return True


_launch: _Launch | None = None


def _accessed(ptrs, mask) -> tuple[np.ndarray, np.ndarray]:
    """(every address of the access, flat; which of them the mask lets through)."""
    a = np.asarray(ptrs.data).reshape(-1)
    return a, np.broadcast_to(np.asarray(mask.data, dtype=bool), np.shape(ptrs.data)).reshape(-1)


def _size(ptrs) -> int:
    """Bytes per element the pointers point to (a bool is stored as int8; a pointer element is 8 bytes)."""
    elem = getattr(ptrs.dtype, "element_ty", None)
    bits = getattr(elem, "primitive_bitwidth", None) or (64 if elem is not None and hasattr(elem, "element_ty") else 8)
    return max(1, int(bits) // 8)


_inside_atomic = [False]  # an atomic load or store running through the interpreter's plain ones


def _tracking() -> _Launch | None:
    L = _launch
    return None if L is None or L.found or _inside_atomic[0] else L


def _on_load(ptrs, mask) -> None:
    L = _tracking()
    if L is None:
        return
    addrs, m = _accessed(ptrs, mask)
    keys = set(np.unique(L.cells(addrs[m], _size(ptrs))).tolist())  # a broadcast load of one element is one element
    if not keys:
        return
    p = L.program
    sync = p in L.synced
    for a in L.atomic.keys() & keys:
        if L.atomic[a] != p and not sync:
            L.report(f"program {L.name(p)} loads an element that another program updates atomically in the same "
                     "launch: on a GPU what it reads depends on which of them runs first")
            return
    for a in L.writer.keys() & keys:
        q, q_sync = L.writer[a]
        if q != p and not (sync and q_sync):
            L.report(f"program {L.name(p)} loads an element that program {L.name(q)} stored in the same launch: on "
                     "a GPU what it reads depends on which of them runs first")
            return
    reader = L.reader
    for a in keys:
        r = reader.get(a)
        if r is None:
            reader[a] = (p, sync)
        else:
            reader[a] = (p if r[0] == p else MULTI, r[1] and sync)
    L.too_large()


def _on_store(builder, load, ptrs, value, mask) -> None:
    L = _tracking()
    if L is None:
        return
    addrs, m = _accessed(ptrs, mask)
    if not m.any():
        return
    p = L.program
    sync = p in L.synced
    # what is there now, read with the interpreter's own load (not tracked): a store of the same value changes nothing
    old = np.asarray(load(builder, ptrs, mask, None, None, False).data)
    new = np.broadcast_to(np.asarray(value.data), old.shape).astype(old.dtype, copy=False)
    same = old == new
    if np.issubdtype(old.dtype, np.floating):
        same |= np.isnan(old) & np.isnan(new)
    changed = L.cells(addrs[m & ~same.reshape(-1)], _size(ptrs)).tolist()
    for a in changed:
        if a in L.atomic and L.atomic[a] != p and not sync:
            L.report(f"program {L.name(p)} stores plainly to an element that another program updates atomically in "
                     "the same launch: on a GPU one of the updates is lost")
            return
        w = L.writer.get(a)
        if w is not None and w[0] != p and not (sync and w[1]):
            L.report(f"programs {L.name(w[0])} and {L.name(p)} store different values to the same element in the "
                     "same launch, without atomics: on a GPU which of them lands last is a race")
            return
        r = L.reader.get(a)
        if r is not None and r[0] != p and not (sync and r[1]):
            who = "several programs" if r[0] == MULTI else f"program {L.name(r[0])}"
            L.report(f"program {L.name(p)} overwrites an element that {who} loaded in the same launch: on a GPU a "
                     "reader may see the new value")
            return
        L.writer[a] = (p, sync)
    L.too_large()


def _on_atomic(ptrs, mask) -> None:
    """An atomic update of `ptrs` (where `mask`) by the current program: a race with another program's plain load or
    store of the same element in this launch, never with another atomic."""
    L = _tracking()
    if L is None:
        return
    a = np.asarray(ptrs.data).reshape(-1)
    if mask is not None:
        a = a[np.broadcast_to(np.asarray(mask.data, dtype=bool), np.shape(ptrs.data)).reshape(-1)]
    p = L.program
    sync = p in L.synced
    for x in np.unique(L.cells(a, _size(ptrs))).tolist():
        w, r = L.writer.get(x), L.reader.get(x)
        if w is not None and w[0] != p and not (sync and w[1]):
            L.report(f"program {L.name(p)} updates atomically an element that program {L.name(w[0])} stored plainly "
                     "in the same launch: on a GPU the result depends on which of them runs first")
            return
        if r is not None and r[0] != p and not (sync and r[1]):
            L.report(f"program {L.name(p)} updates atomically an element that another program loaded plainly in the "
                     "same launch: on a GPU the reader may see the update")
            return
        q = L.atomic.get(x)
        L.atomic[x] = p if q is None or q == p else MULTI
    L.too_large()


def _acquired(old, cmp, val) -> bool:
    """Whether an atomic_cas took a lock: it found the expected value and wrote another."""
    try:
        o, c, v = (np.asarray(t) for t in (old, cmp, val))
        return bool(np.any((o == c) & (v != c)))
    except Exception:  # an unexpected shape: not a lock
        return False


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
    rmw, cas = B.create_atomic_rmw, B.create_atomic_cas
    a_load, a_store = B.create_atomic_load, B.create_atomic_store
    poll = getattr(B, "create_atomic_poll", None)

    def atomic_rmw(self, op, ptr, val, mask, sem, scope):
        _on_atomic(ptr, mask)
        return rmw(self, op, ptr, val, mask, sem, scope)

    def atomic_cas(self, ptr, cmp, val, sem, scope):
        _on_atomic(ptr, None)
        out = cas(self, ptr, cmp, val, sem, scope)
        if _launch is not None and _acquired(out.data, cmp.data, val.data):
            _launch.synced.add(_launch.program)
        return out

    # the interpreter's atomic load and store go through its plain ones (hooked): they count as atomics only
    def atomic_load(self, ptr, mask, sem, scope):
        _on_atomic(ptr, mask)
        _inside_atomic[0] = True
        try:
            return a_load(self, ptr, mask, sem, scope)
        finally:
            _inside_atomic[0] = False

    def atomic_store(self, ptr, val, mask, sem, scope):
        _on_atomic(ptr, mask)
        _inside_atomic[0] = True
        try:
            return a_store(self, ptr, val, mask, sem, scope)
        finally:
            _inside_atomic[0] = False

    B.create_atomic_rmw, B.create_atomic_cas = atomic_rmw, atomic_cas
    B.create_atomic_load, B.create_atomic_store = atomic_load, atomic_store
    if poll is not None:
        def atomic_poll(self, ptr, expected, timeout_ns, sem, scope):
            _on_atomic(ptr, None)
            return poll(self, ptr, expected, timeout_ns, sem, scope)

        B.create_atomic_poll = atomic_poll
    # an atomic this module does not know (a newer Triton's) stops the judging of its launch, as before: never a
    # false finding, never a crash
    known = {"create_atomic_rmw", "create_atomic_cas", "create_atomic_load", "create_atomic_store",
             "create_atomic_poll"}
    for name in [n for n in vars(B) if n.startswith("create_atomic") and n not in known]:
        B_fn = getattr(B, name)

        def other(self, *args, _fn=B_fn, **kwargs):
            global _launch
            _launch = None
            return _fn(self, *args, **kwargs)

        setattr(B, name, other)
