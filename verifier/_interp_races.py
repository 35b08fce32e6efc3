"""Races under Triton's interpreter (CPU verification), across programs and within one: installed by the worker.

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

Races between the threads of one program (`intra_findings`, reported as `intra-program-race`): the interpreter runs
each load and store of a program over the whole block at once, where a GPU spreads the block's elements over many
threads (several warps) that see each other's global-memory stores only after `tl.debug_barrier()`. A doubling
(Hillis-Steele) scan that stores a row, loads it back `d` lanes to the left and repeats is right under the interpreter
and wrong on a GPU. So, within the current program and since its last barrier (hooked: the interpreter's is a no-op),
each cell keeps the lane whose store last changed it and the lanes that loaded it; a lane is the element's flat index
in the accessed block together with the block's shape without its 1s. A load of a cell another lane stored, and a
store that changes a cell another lane loaded (the scan's next step overwriting what a slower thread has yet to
read), are findings. A lane re-reading or rewriting its own element (same block shape, same index: two passes with
the same offsets) is not; masked-off elements are no access, and a store that leaves the value as it was counts for
nothing, as above. A scalar is a block of shape (): a scalar loaded back as a scalar is the same lane (an
accumulator kept in global memory: the one thread that stores it reads its own store), but a block's element loaded
as a scalar (a carry taken from the last element a chunk stored), or a scalar loaded as a block, is a race between
different lanes and is reported, as on a GPU one thread stores what all of them load. State is kept in numpy (sorted
cell arrays, merged as a binary counter: no per-element Python), cleared at every barrier and every program; a load
before any store of its program, the common case, is not looked up, only recorded.

Still open within a program: blocks of one shape are taken to share one layout, but the compiler may give two of
them different layouts (a load vectorised differently from the store, a `tl.dot` / MMA operand or result, a
`convert_layout`), so the same flat index may live on two threads; a block smaller than the program's threads is
replicated (each element's store is done by one thread, its load by all of them); a scalar re-read as a scalar is
trusted; two lanes storing one cell without a load between (a write-write race), and atomics mixed with plain
accesses within one program, are not tracked.

Trusted code: it runs only on the interpreter's own arrays. The worker clears `findings` and `intra_findings` before
each trial's forward and reads them after it."""
from __future__ import annotations

import numpy as np

LIMIT = 1 << 22  # distinct elements tracked per launch (CPU inputs are at most 1 << 16 elements, parameters 1 << 22)
MULTI = -1       # an element that several programs read (in a cell map: several lanes)
ABSENT = -2      # a cell map's key of a cell it does not hold

findings: list[str] = []        # cross-program races: the worker reports them as `cross-program-race`
intra_findings: list[str] = []  # races between the threads of one program: `intra-program-race`


class _CellMap:
    """Cells -> one int64 key each (a lane: shape id << 32 | flat index), in numpy: a few sorted parts, merged as a
    binary counter merges (amortised n log n), so a program that loops over chunks costs no per-element Python.
    `last`: a later key replaces an earlier one (stores); otherwise different keys of one cell make MULTI (loads)."""

    def __init__(self, last: bool) -> None:
        self.last = last
        self.parts: list[tuple[np.ndarray, np.ndarray]] = []  # (sorted unique cells, their keys), oldest first

    def _normalised(self, cells: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        order = np.argsort(cells, kind="stable")
        c, k = cells[order], keys[order]
        starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
        if self.last:  # the last of each run of equal cells, in the order they came
            ends = np.r_[starts[1:], len(c)] - 1
            return c[starts], k[ends]
        lo, hi = np.minimum.reduceat(k, starts), np.maximum.reduceat(k, starts)
        return c[starts], np.where(lo == hi, lo, MULTI)

    def add(self, cells: np.ndarray, keys: np.ndarray) -> None:
        if not len(cells):
            return
        self.parts.append(self._normalised(cells, keys))
        while len(self.parts) > 1 and 2 * len(self.parts[-1][0]) >= len(self.parts[-2][0]):
            (c1, k1), (c2, k2) = self.parts[-2], self.parts[-1]
            self.parts[-2:] = [self._normalised(np.concatenate([c1, c2]), np.concatenate([k1, k2]))]

    def lookup(self, cells: np.ndarray) -> np.ndarray:
        """The key of each of `cells` (ABSENT where none)."""
        out = np.full(len(cells), ABSENT, dtype=np.int64)
        for c, k in self.parts:
            i = np.minimum(np.searchsorted(c, cells), len(c) - 1)
            hit = c[i] == cells
            new = k[i[hit]]
            if not self.last:
                old = out[hit]
                new = np.where((old == ABSENT) | (old == new), new, MULTI)
            out[hit] = new
        return out

    def other_lane(self, cells: np.ndarray, lanes: np.ndarray) -> tuple[int, int] | None:
        """The first of `cells` this map holds under a key other than its lane in `lanes`: (its index, that key)."""
        if not self.parts:  # nothing recorded since the last barrier: the common case, no lookup
            return None
        k = self.lookup(cells)
        bad = np.flatnonzero((k != ABSENT) & (k != lanes))
        return (int(bad[0]), int(k[bad[0]])) if len(bad) else None

    def split(self, k: int) -> None:
        """Cells of 1/k the size: each cell becomes k, with its key (sorted order is kept)."""
        self.parts = [((c[:, None] * np.uint64(k) + np.arange(k, dtype=np.uint64)).reshape(-1), np.repeat(v, k))
                      for c, v in self.parts]

    def clear(self) -> None:
        self.parts.clear()


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
        # the current program since its last barrier: the lane whose store last changed each cell, the lanes that
        # loaded each cell (a lane: shape id << 32 | flat index in the accessed block)
        self.stored = _CellMap(last=True)
        self.loaded = _CellMap(last=False)
        self.shapes: dict[tuple[int, ...], int] = {}

    def new_program(self) -> None:
        """A barrier, or the next program: what this program's threads did is visible to all of them."""
        self.stored.clear()
        self.loaded.clear()

    def lanes(self, ptrs, sel: np.ndarray, n: int) -> np.ndarray:
        """The lane key of each cell that `L.cells` gives for the elements `sel` of `ptrs` (n cells per element).
        A lane is the element's flat index in the block and the block's shape without its 1s: blocks of one shape
        get one layout, element i on one thread (what stays open: layouts that differ for one shape)."""
        shape = tuple(d for d in np.shape(ptrs.data) if d != 1)
        sid = self.shapes.setdefault(shape, len(self.shapes))
        lane = np.flatnonzero(sel).astype(np.int64) | np.int64(sid << 32)
        return lane if n == 1 else np.repeat(lane, n)

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
                self.stored.split(k)
                self.loaded.split(k)
            self.cell = size
        first = addrs.astype(np.uint64, copy=False) // np.uint64(self.cell)  # every load and store: no copy
        n = max(1, size // self.cell)
        return first if n == 1 else (first[:, None] + np.arange(n, dtype=np.uint64)).reshape(-1)

    def lane_name(self, key: int) -> str:
        """A lane key in words: which element of which block shape (the shape without its 1s)."""
        if key == MULTI:
            return "several of its lanes"
        shape = next((s for s, i in self.shapes.items() if i == int(key) >> 32), ())
        return f"element {int(key) & 0xFFFFFFFF} of a block of shape {shape}" if shape else "a scalar"

    def name(self, p: int) -> str:
        _, ny, nz = self.grid
        return f"({p // (ny * nz)}, {p // nz % ny}, {p % nz})"

    def report(self, text: str, why: bool = True) -> None:
        if not self.found:
            self.found = True
            findings.append(text + (" (Triton's interpreter runs a launch's programs one after another, in order; a "
                                    "GPU runs them at once, in any order)" if why else ""))

    def report_intra(self, text: str) -> None:
        if not self.found:
            self.found = True
            intra_findings.append(
                f"program {self.name(self.program)} {text}, with no tl.debug_barrier() between (Triton's interpreter "
                "runs each load and store over the whole block at once; a GPU spreads a block's elements over many "
                "threads, and one thread's store is visible to the others only after a barrier)")

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
    size = _size(ptrs)
    cells = L.cells(addrs[m], size)
    if not len(cells):
        return
    keys = set(np.unique(cells).tolist())  # a broadcast load of one element is one element
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
    # within this program: a cell that another lane stored since the last barrier (looked up only once the program
    # has stored something since then; most load everything first)
    lanes = L.lanes(ptrs, m, max(1, size // L.cell))
    hit = L.stored.other_lane(cells, lanes)
    if hit:
        L.report_intra(f"loads as {L.lane_name(lanes[hit[0]])} an element that it stored as {L.lane_name(hit[1])}")
        return
    L.loaded.add(cells, lanes)
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
    sel = m & ~same.reshape(-1)
    size = _size(ptrs)
    cells = L.cells(addrs[sel], size)
    for a in cells.tolist():
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
    if len(cells):
        # within this program: a cell that another lane loaded since the last barrier may be read after this store
        lanes = L.lanes(ptrs, sel, max(1, size // L.cell))
        hit = L.loaded.other_lane(cells, lanes)
        if hit:
            L.report_intra(f"stores as {L.lane_name(lanes[hit[0]])} an element that it loaded as "
                           f"{L.lane_name(hit[1])}")
            return
        L.stored.add(cells, lanes)
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
    create_barrier = B.create_barrier

    def grid_dim(self, nx, ny, nz):
        global _launch
        _launch = _Launch((int(nx), int(ny), int(nz)))
        return set_grid_dim(self, nx, ny, nz)

    def grid_idx(self, x, y, z):
        set_grid_idx(self, x, y, z)
        if _launch is not None:
            _, ny, nz = _launch.grid
            _launch.program = (int(x) * ny + int(y)) * nz + int(z)
            _launch.new_program()

    def barrier(self):
        # tl.debug_barrier(): every thread of the program has done its loads and stores; what they did is
        # visible to all of them (the interpreter's own barrier is a no-op)
        if _launch is not None:
            _launch.new_program()
        return create_barrier(self)

    def masked_load(self, ptrs, mask, other, cache_policy, is_volatile):
        _on_load(ptrs, mask)
        return load(self, ptrs, mask, other, cache_policy, is_volatile)

    def masked_store(self, ptrs, value, mask, cache_policy):
        _on_store(self, load, ptrs, value, mask)
        return store(self, ptrs, value, mask, cache_policy)

    B.set_grid_dim, B.set_grid_idx, B.create_barrier = grid_dim, grid_idx, barrier
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
