"""The verifier's value variants (one trial each at the small sizes): floating inputs times 32, all-zero floating
inputs, and the float arguments of __init__ and forward times 1.5. A candidate right only on randn values, or one that
hard-codes the problem's arguments, fails there; a variant that leaves the problem's domain is left out and named in
the verdict's flags. Real sandboxes, the Triton interpreter on CPU."""
from __future__ import annotations

from verifier import VerifyConfig, verify

CFG = dict(device="cpu", trials=1, perturb=0, ordered=False)

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
