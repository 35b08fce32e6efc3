"""Kernels right only because Triton's interpreter runs a launch's programs in order (CPU verification): a GPU runs
them at once. The candidate worker tracks plain loads and stores per launch (verifier/_interp_races.py); the corpus
holds two such cheats (a split-K sum accumulated with load + store, a prefix sum carried from block to block) and
the atomic split-K sum that is their honest twin."""
from __future__ import annotations

import textwrap

from verifier import verify

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
    overwrites. In order the read comes first; on a GPU the next block may already have moved."""
    cand = _candidate('''
        @triton.jit
        def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


        @triton.jit
        def shift_left_in_place(buf_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            v = tl.load(buf_ptr + offs + 1, mask=offs + 1 < n)
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
