"""Kernels right only because Triton's interpreter runs a launch's programs in order (CPU verification): a GPU runs
them at once. The candidate worker tracks plain loads and stores per launch (verifier/_interp_races.py); the corpus
holds two such cheats (a split-K sum accumulated with load + store, a prefix sum carried from block to block) and
the atomic split-K sum that is their honest twin. Within one program the interpreter runs a whole block at once, where a
GPU runs its elements on many threads: a load of what another lane stored, or a store over what another lane loaded,
with no tl.debug_barrier() between, is an `intra-program-race` (a doubling scan through global memory)."""
from __future__ import annotations

import textwrap

from verifier import verify, verify_batch

HEADER = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n\n\n"

LAST = HEADER + textwrap.dedent('''
    class Model(nn.Module):
        """The last element of a vector."""

        def forward(self, x):
            return x[-1:] * 1.0


    n = 4000


    def get_inputs():
        return [torch.randn(n)]


    def get_init_inputs():
        return []
    ''')

SHIFTED = HEADER + textwrap.dedent('''
    class Model(nn.Module):
        """Twice a vector without its first element."""

        def forward(self, x):
            return x[1:] * 2.0


    n = 4000


    def get_inputs():
        return [torch.randn(n)]


    def get_init_inputs():
        return []
    ''')


def _candidate(kernels: str, forward: str) -> str:
    return HEADER + textwrap.dedent(kernels) + "\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n" + \
        textwrap.indent(textwrap.dedent(forward), "        ")


def _rejected_for_a_race_only(v) -> None:
    assert not v.ok and v.stage == "correctness" and v.rules == ["cross-program-race"], v.summary()
    # what the interpreter computed was right: the order of the programs is the only thing wrong
    assert v.max_abs_err is not None and v.max_abs_err <= 1e-6, v.summary()


def test_programs_storing_different_values_to_one_element_race():
    """Every program stores its block's last element to out[0]: under the interpreter the last program's store lands
    last, which is the answer; on a GPU any of them may."""
    cand = _candidate('''
        @triton.jit
        def last_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
            last = tl.sum(tl.where(offs == tl.minimum(n, (tl.program_id(0) + 1) * BLOCK) - 1, x, 0.0), 0)
            tl.store(out_ptr, last)
        ''', '''
        out = torch.empty(1, device=x.device, dtype=x.dtype)
        last_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
        return out
        ''')
    _rejected_for_a_race_only(verify(LAST, cand, device="cpu"))


def test_a_program_overwriting_what_an_earlier_one_read_races():
    """A shift done in place in blocks: each program reads one element past its block, which the next program
    overwrites. In order the read comes first; on a GPU the next block may already have moved. (Without the barrier it
    is an intra-program race first: within a block too, lane i overwrites what lane i - 1 read.)"""
    cand = _candidate('''
        @triton.jit
        def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


        @triton.jit
        def shift_left_in_place(buf_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            v = tl.load(buf_ptr + offs + 1, mask=offs + 1 < n)
            tl.debug_barrier()  # within the program (lane i overwrites what lane i - 1 read): not the race shown here
            tl.store(buf_ptr + offs, v, mask=offs + 1 < n)
        ''', '''
        n = x.numel()
        buf = torch.empty_like(x)
        double_kernel[(triton.cdiv(n, 256),)](x, buf, n, BLOCK=256)
        shift_left_in_place[(triton.cdiv(n, 256),)](buf, n, BLOCK=256)
        return buf[:n - 1]
        ''')
    _rejected_for_a_race_only(verify(SHIFTED, cand, device="cpu"))


def test_shared_writes_of_one_value_and_in_place_work_of_one_program_are_not_races():
    """Several programs storing the same value to one element, and a program reading and then rewriting its own
    elements, give the same result in any order: verified."""
    cand = _candidate('''
        @triton.jit
        def double_kernel(x_ptr, out_ptr, flag_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs + 1, mask=offs + 1 < n), mask=offs + 1 < n)
            tl.store(flag_ptr, 1)


        @triton.jit
        def twice_in_place(buf_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            v = tl.load(buf_ptr + offs, mask=offs < n)
            tl.store(buf_ptr + offs, v * 2.0, mask=offs < n)
        ''', '''
        n = x.numel()
        buf = torch.empty(n - 1, device=x.device, dtype=x.dtype)
        flag = torch.zeros(1, device=x.device, dtype=torch.int32)
        double_kernel[(triton.cdiv(n, 256),)](x, buf, flag, n, BLOCK=256)
        twice_in_place[(triton.cdiv(n - 1, 256),)](buf, n - 1, BLOCK=256)
        return buf
        ''')
    v = verify(SHIFTED, cand, device="cpu")
    assert v.ok, v.summary()


SUM = HEADER + textwrap.dedent('''
    class Model(nn.Module):
        """The sum of a vector."""

        def forward(self, x):
            return x.sum().reshape(1)


    n = 4000


    def get_inputs():
        return [torch.randn(n)]


    def get_init_inputs():
        return []
    ''')


def test_a_lock_guarded_accumulation_is_trusted_and_an_unrelated_atomic_excuses_nothing():
    """Each program adds its block's sum into out[0] with a plain load and store inside a spin lock taken with
    atomic_cas and released with atomic_xchg (Triton's layer-norm backward tutorial does this for its partial sums):
    correct on a GPU, verified. The same accumulation with the lock replaced by an atomic_add on a counter is the
    plain race it was, whatever else the launch does atomically."""
    locked = _candidate('''
        @triton.jit
        def sum_kernel(x_ptr, out_ptr, lock_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            part = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0)
            while tl.atomic_cas(lock_ptr, 0, 1) == 1:
                pass
            tl.store(out_ptr, tl.load(out_ptr) + part)
            tl.atomic_xchg(lock_ptr, 0)
        ''', '''
        n = x.numel()
        out = torch.zeros(1, device=x.device, dtype=x.dtype)
        lock = torch.zeros(1, device=x.device, dtype=torch.int32)
        sum_kernel[(triton.cdiv(n, 256),)](x, out, lock, n, BLOCK=256)
        return out
        ''')
    v = verify(SUM, locked, device="cpu")
    assert v.ok, v.summary()
    counted = locked.replace("while tl.atomic_cas(lock_ptr, 0, 1) == 1:\n        pass\n", "tl.atomic_add(lock_ptr, 1)\n") \
                    .replace("    tl.atomic_xchg(lock_ptr, 0)\n", "")
    assert "atomic_cas" not in counted and "atomic_xchg" not in counted and "atomic_add" in counted
    _rejected_for_a_race_only(verify(SUM, counted, device="cpu"))


CUMSUM = HEADER + textwrap.dedent('''
    class Model(nn.Module):
        """Inclusive prefix sum along dim 1."""

        def forward(self, x):
            return torch.cumsum(x, dim=1)


    rows = 6
    cols = 40


    def get_inputs():
        return [torch.randn(rows, cols)]


    def get_init_inputs():
        return []
    ''')

# a doubling (Hillis-Steele) scan of each row through the output buffer, one program per row; BARRIER_1 and
# BARRIER_2 are replaced by tl.debug_barrier() or nothing
DOUBLING = '''
    @triton.jit
    def scan_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
        cols = tl.arange(0, BLOCK)
        mask = cols < N
        base = out_ptr + tl.program_id(0) * N
        x = tl.load(x_ptr + tl.program_id(0) * N + cols, mask=mask, other=0.0)
        d = 1
        while d < N:
            tl.store(base + cols, x, mask=mask)
            BARRIER_1
            x += tl.load(base + cols - d, mask=mask & (cols >= d), other=0.0)
            BARRIER_2
            d *= 2
        tl.store(base + cols, x, mask=mask)
    '''
ROWS = '''
    out = torch.empty_like(x)
    {kernel}[(x.shape[0],)](x, out, x.shape[1], {block}=triton.next_power_of_2(x.shape[1]))
    return out
    '''


def _rejected_for_an_intra_race_only(v) -> None:
    assert not v.ok and v.stage == "correctness" and v.rules == ["intra-program-race"], v.summary()
    assert v.max_abs_err is not None and v.max_abs_err <= 1e-4, v.summary()  # the interpreter's answer was right


def _quick(candidates: list[str]):
    """Fewer trials: the finding comes in the first one."""
    return verify_batch(CUMSUM, candidates, device="cpu", values=False, perturb=0, ordered=False)


def test_a_scan_through_global_memory_needs_barriers_between_the_threads_of_a_program():
    """Without barriers a lane loads its neighbour's store (a GPU thread may read it before it lands); with a barrier
    after the store only, the next step's store may overwrite what a slower thread has not loaded yet; with both it
    is right on a GPU too and verifies."""
    def scan(b1: str, b2: str) -> str:
        return _candidate(DOUBLING.replace("BARRIER_1", b1).replace("BARRIER_2", b2),
                          ROWS.format(kernel="scan_kernel", block="BLOCK"))

    none, after_store, both = _quick([scan("pass", "pass"), scan("tl.debug_barrier()", "pass"),
                                      scan("tl.debug_barrier()", "tl.debug_barrier()")])
    _rejected_for_an_intra_race_only(none)
    assert "loads as element 1 of a block of shape (64,) an element that it stored as element 0" in \
        none.reasons[0].message, none.summary()
    _rejected_for_an_intra_race_only(after_store)
    assert "stores as" in after_store.reasons[0].message, after_store.summary()
    assert both.ok, both.summary()


def test_own_lanes_masked_off_lanes_and_a_scalar_reread_are_not_intra_program_races():
    """A lane re-reading what it stored (same offsets, same block shape), accesses that the mask turns off (an element
    masked off is no access), and a scalar stored and loaded back as a scalar (an accumulator kept in global memory:
    the one storing thread reads its own store) are verified."""
    cand = _candidate('''
        @triton.jit
        def two_pass_kernel(x_ptr, out_ptr, tot_ptr, N, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            m = cols < N
            base = out_ptr + row * N
            tl.store(tot_ptr + row, 0.0)
            for start in range(0, N, 4):  # a running total in global memory, loaded and stored as a scalar
                t = tl.load(tot_ptr + row)
                tl.store(tot_ptr + row, t + tl.sum(tl.load(x_ptr + row * N + start + tl.arange(0, 4),
                                                           mask=start + tl.arange(0, 4) < N, other=0.0), 0))
            tl.store(base + cols, tl.cumsum(tl.load(x_ptr + row * N + cols, mask=m, other=0.0), 0), mask=m)
            tl.store(base + cols + 1, cols * 1.0, mask=m & (cols < 0))  # masked off everywhere: no store
            left = tl.load(base + cols - 1, mask=m & (cols < 0), other=0.0)  # masked off everywhere: no load
            s = tl.load(base + cols, mask=m, other=0.0)  # each lane its own element
            total = tl.load(tot_ptr + row)
            tl.store(base + cols, s + left + total * 0.0, mask=m)
        ''', '''
        out = torch.empty_like(x)
        tot = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        two_pass_kernel[(x.shape[0],)](x, out, tot, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return out
        ''')
    v, = _quick([cand])
    assert v.ok, v.summary()


def test_a_carry_read_back_as_a_scalar_from_a_block_store_is_an_intra_program_race():
    """A chunked scan that takes its carry by loading the last element the chunk stored: one thread stored it, every
    thread loads it (a block store read as a scalar); on a GPU other warps may read the old value."""
    cand = _candidate('''
        @triton.jit
        def chunk_kernel(x_ptr, out_ptr, N, CHUNK: tl.constexpr):
            row = tl.program_id(0)
            carry = tl.zeros((), dtype=tl.float32)
            for start in range(0, N, CHUNK):
                cols = start + tl.arange(0, CHUNK)
                m = cols < N
                s = tl.cumsum(tl.load(x_ptr + row * N + cols, mask=m, other=0.0), 0) + carry
                tl.store(out_ptr + row * N + cols, s, mask=m)
                carry = tl.load(out_ptr + row * N + tl.minimum(start + CHUNK, N) - 1)
        ''', '''
        out = torch.empty_like(x)
        chunk_kernel[(x.shape[0],)](x, out, x.shape[1], CHUNK=16)
        return out
        ''')
    v, = _quick([cand])
    _rejected_for_an_intra_race_only(v)
    assert "as a scalar" in v.reasons[0].message, v.summary()
