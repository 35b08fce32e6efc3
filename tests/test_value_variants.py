"""The verifier's value variants (one trial each at the small sizes): floating inputs times 32, all-zero floating
inputs, the float arguments of __init__ and forward times 1.5, and their int and bool arguments changed. A candidate
right only on randn values, or one that hard-codes the problem's arguments, fails there; a variant that leaves the
problem's domain is left out and named in the verdict's flags. Real sandboxes, the Triton interpreter on CPU."""
from __future__ import annotations

from verifier import VerifyConfig, verify

CFG = dict(device="cpu", trials=1, perturb=0, ordered=False, larger=False)

LEAKY = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, slope: float):
        super().__init__()
        self.slope = slope

    def forward(self, x, gain: float):
        return torch.where(x > 0, x, x * self.slope) * gain


rows, cols = 16, 48


def get_inputs():
    return [torch.randn(rows, cols), 1.25]


def get_init_inputs():
    return [0.2]
'''

KERNEL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def leaky_kernel(x_ptr, y_ptr, n, slope, gain, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(x > 0, x, x * slope) * gain, mask=m)


class ModelNew(nn.Module):
    def __init__(self, slope: float):
        super().__init__()
        self.slope = slope

    def forward(self, x, gain: float):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        leaky_kernel[(triton.cdiv(n, 256),)](x, y, n, SLOPE, GAIN, BLOCK=256)
        return y
'''
HONEST = KERNEL.replace("SLOPE", "self.slope").replace("GAIN", "gain")


def test_a_candidate_that_reads_its_arguments_verifies_under_other_values():
    v = verify(LEAKY, HONEST, **CFG)
    assert v.ok, v.summary()
    assert [s["label"] for s in v.shapes] == ["base", "scaled", "zeros", "args"], v.shapes
    assert not v.flags, v.summary()


def test_hard_coded_arguments_fail_the_args_variant():
    for src in (KERNEL.replace("SLOPE", "0.2").replace("GAIN", "gain"),  # the init argument get_init_inputs gives
                KERNEL.replace("SLOPE", "self.slope").replace("GAIN", "1.25")):  # forward's float argument
        v = verify(LEAKY, src, **CFG)
        assert not v.ok and v.stage == "correctness", v.summary()
        assert "args trial 1 (float arguments of __init__ and forward times 1.5)" in v.reasons[0].message


LOG = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.log(x)


n = 1000


def get_inputs():
    return [torch.rand(n) + 0.1]


def get_init_inputs():
    return []
'''

LOG_KERNEL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.log(tl.load(x_ptr + offs, mask=m, other=1.0)), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        log_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
        return y
'''


def test_a_value_variant_outside_the_problems_domain_is_left_out_and_named():
    """log(0) = -inf: the all-zero inputs are no test of a log kernel (the reference itself is not finite there),
    and there are no float arguments to vary; the scaled inputs still check it."""
    v = verify(LOG, LOG_KERNEL, **CFG)
    assert v.ok, v.summary()
    assert [s["label"] for s in v.shapes] == ["base", "scaled"], v.shapes
    flags = {f.rule: f.message for f in v.flags}
    assert set(flags) == {"values-skipped"}, flags  # not "shapes-skipped": every shape was checked
    assert "all-zero floating inputs give the reference non-finite outputs" in flags["values-skipped"]
    off = verify(LOG, LOG_KERNEL, values=False, **CFG)
    assert off.ok and [s["label"] for s in off.shapes] == ["base"] and not off.flags, off.summary()


GROUPS = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    """Sums of `groups` equal runs of columns, then a softmax over `dim` and a power of the result."""

    def __init__(self, dim: int, groups: int):
        super().__init__()
        self.dim = dim
        self.groups = groups

    def forward(self, x, power: int, keepdim: bool):
        g = torch.softmax(x.view(x.shape[0], self.groups, -1).sum(2), dim=self.dim) ** power
        return g.unsqueeze(1) if keepdim else g


rows, cols = 16, 64


def get_inputs():
    return [torch.randn(rows, cols), 2, False]


def get_init_inputs():
    return [1, 8]
'''

GROUPS_KERNEL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def group_softmax_kernel(x_ptr, y_ptr, cols, power, G: tl.constexpr, W: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, G)[:, None] * W + tl.arange(0, W)[None, :]
    s = tl.sum(tl.load(x_ptr + row * cols + offs), axis=1)
    e = tl.exp(s - tl.max(s, axis=0))
    p = e / tl.sum(e, axis=0)
    out = p
    for _ in range(1, power):
        out = out * p
    tl.store(y_ptr + row * G + tl.arange(0, G), out)


class ModelNew(nn.Module):
    def __init__(self, dim: int, groups: int):
        super().__init__()
        self.groups = groups  # written for dim=1 (a softmax over each row's groups), as the problem asks

    def forward(self, x, power: int, keepdim: bool):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty(rows, self.groups, device=x.device, dtype=x.dtype)
        group_softmax_kernel[(rows,)](x, y, cols, POWER, G=self.groups, W=cols // self.groups)
        return y
'''


def test_int_and_bool_arguments_are_changed_where_the_reference_runs_and_its_output_changes():
    """The "ints" variant changes power (2 -> 3): its output changes and the reference runs. It leaves dim alone (a
    dimension selector: a kernel written for the problem's dim=1 is an honest answer), keepdim (True adds a dimension:
    another kind of output) and groups (9 and 7 do not divide 64: the reference fails, which the flags say). A kernel
    that reads power verifies; one that hard-codes the problem's 2 fails there."""
    v = verify(GROUPS, GROUPS_KERNEL.replace("POWER", "power"), **CFG)
    assert v.ok, v.summary()
    assert [s["label"] for s in v.shapes] == ["base", "scaled", "zeros", "ints"], v.shapes
    flags = {f.rule: f.message for f in v.flags}
    assert set(flags) == {"values-skipped"} and "arguments the reference cannot take: groups = 9 instead of 8" in flags["values-skipped"]
    assert "dim" not in flags["values-skipped"].replace("groups", "")
    bad = verify(GROUPS, GROUPS_KERNEL.replace("POWER", "2"), **CFG)
    assert not bad.ok and bad.stage == "correctness", bad.summary()
    assert bad.reasons[0].message.startswith("ints trial 1 (int and bool arguments"), bad.summary()
