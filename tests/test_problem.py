import pytest

from verifier import problem as P

SRC = """import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x

batch_size = 16
N = 2048 * 2
shape = (32768,)
kernel_size = 3
dim = 1
eps = 1e-5

def get_inputs():
    return [torch.rand(batch_size, N)]

def get_init_inputs():
    return []
"""


def test_size_constants_found_and_classified():
    consts = {c.name: c for c in P.size_constants(SRC)}
    assert consts["N"].value == 4096 and consts["N"].scalable
    assert consts["shape"].value == (32768,) and consts["shape"].scalable
    assert consts["batch_size"].scalable
    assert not consts["kernel_size"].scalable and not consts["dim"].scalable
    assert "eps" not in consts  # floats are not sizes


def test_with_constants_rewrites_only_named_lines():
    out = P.with_constants(SRC, {"N": 33, "shape": (17,)})
    assert "N = 33\n" in out and "shape = (17,)\n" in out and "batch_size = 16\n" in out
    assert out.count("\n") == SRC.count("\n")  # line numbers kept for tracebacks


def test_oddify_gives_odd_sizes():
    assert P.oddify(64, 0) == 65 and P.oddify(64, 1) == 63 and P.oddify((16, 3), 0) == (17, 3)
    assert all(P.oddify(v, k) % 2 == 1 for v in (8, 100, 4096) for k in (0, 1))


def test_parse_problem_reports_what_is_missing():
    with pytest.raises(P.ProblemError, match="get_inputs"):
        P.parse_problem("import torch\nclass Model: pass\ndef get_init_inputs(): return []\n")
    with pytest.raises(P.ProblemError, match="syntax error"):
        P.parse_problem("def broken(:\n")


def test_gpu_budget_shrinks_only_inputs_too_large_for_a_sandbox():
    """KernelBench's ReLU (4096 x 393216 fp32, 6.4 GB per tensor) is shrunk to the GPU budget; a problem
    within it keeps its own sizes. Planned on the meta device: nothing is allocated."""
    from verifier.worker_reference import plan_small

    huge = SRC.replace("batch_size = 16", "batch_size = 4096").replace("N = 2048 * 2", "N = 393216")
    vals = plan_small(huge, P.size_constants(huge), 1 << 28, 1 << 29, "GPU")
    assert vals["batch_size"] * vals["N"] <= 1 << 28 and vals["batch_size"] * vals["N"] > 1 << 26
    own = {c.name: c.value for c in P.size_constants(SRC) if c.scalable}
    assert plan_small(SRC, P.size_constants(SRC), 1 << 28, 1 << 29, "GPU") == own


POOL = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size: int):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size)

    def forward(self, x):
        return self.pool(x)


batch_size = 16
channels = 64
height = 2048
width = 2048
kernel_size = 11


def get_inputs():
    return [torch.rand(batch_size, channels, height, width)]


def get_init_inputs():
    return [kernel_size]
"""


def test_cpu_plan_undoes_halvings_until_the_problem_runs():
    """KernelBench's 2-D average pooling (a window of 11) did not load on a CPU: halved to fit the budget,
    the image became 8 x 8, smaller than the window. The plan now steps back until a forward runs."""
    from verifier.worker_reference import _forward_once, plan_small

    consts = P.size_constants(POOL)
    blind = plan_small(POOL, consts, 1 << 15, 1 << 16)
    with pytest.raises(RuntimeError, match="too small"):
        _forward_once(P.with_constants(POOL, blind), "cpu")
    vals = plan_small(POOL, consts, 1 << 15, 1 << 16, device="cpu")
    assert vals["height"] >= 11 and vals["width"] >= 11 and vals != blind
    _forward_once(P.with_constants(POOL, vals), "cpu")
    assert vals["batch_size"] * vals["channels"] * vals["height"] * vals["width"] <= 64 << 15


MLP = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, input_size, layer_sizes, output_size):
        super().__init__()
        sizes = [input_size] + layer_sizes + [output_size]
        self.net = nn.Sequential(*[nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])

    def forward(self, x):
        return self.net(x)

batch_size = 128
input_size = 16384
layer_sizes = [16384, 16384]
output_size = 8192

def get_inputs():
    return [torch.rand(batch_size, input_size)]

def get_init_inputs():
    return [input_size, layer_sizes, output_size]
"""


def test_list_constants_are_sizes_and_stay_lists():
    """KernelBench level 3's MLPs keep their hidden widths in a list, which the problem concatenates."""
    consts = {c.name: c for c in P.size_constants(MLP)}
    assert consts["layer_sizes"].value == (16384, 16384) and consts["layer_sizes"].scalable
    small = P.with_constants(MLP, {"layer_sizes": P.shrink(consts["layer_sizes"].value)})
    assert "layer_sizes = [8192, 8192]\n" in small
    assert "layer_sizes = [16385, 16385]\n" in P.with_constants(MLP, {"layer_sizes": P.oddify(consts["layer_sizes"].value, 0)})


def test_cpu_plan_also_shrinks_a_model_whose_inputs_already_fit():
    """The MLP's 670M parameters (hidden widths only the model shows) were built at full size on a CPU and the
    reference timed out; the plan now also halves sizes while that shrinks the model, and no further."""
    from verifier.worker_reference import _param_numel, plan_small

    vals = plan_small(MLP, P.size_constants(MLP), 1 << 15, 1 << 16)
    assert max(vals["layer_sizes"]) <= 1024 and _param_numel(P.with_constants(MLP, vals)) <= 64 << 16
    inline = MLP.replace("layer_sizes = [16384, 16384]", "layer_sizes = [2048] * 2")  # not a constant
    vals = plan_small(inline, P.size_constants(inline), 1 << 15, 1 << 16)
    assert vals["batch_size"] >= 64 and vals["input_size"] >= 64, vals  # inputs not shrunk to nothing


def test_chained_and_semicolon_assignments_are_sizes_and_rewritten_in_place():
    """KernelBench level 2 writes `depth = 16; height = width = 64`: rewriting the whole line dropped the other
    statements (NameError: height), and `height = width = 512` was no size at all (inputs too large on a CPU)."""
    src = SRC.replace("N = 2048 * 2\n", "depth = 16; height = width = 64  # sizes\n").replace(
        "torch.rand(batch_size, N)", "torch.rand(batch_size, depth, height, width)")
    consts = {c.name: c.value for c in P.size_constants(src)}
    assert consts["depth"] == 16 and consts["height"] == consts["width"] == 64
    out = P.with_constants(src, {"height": 32, "depth": 8})
    assert "depth = 8; height = width = 32  # sizes\n" in out
    assert len(out.splitlines()) == len(src.splitlines())


def test_tuple_unpacking_assignments_are_sizes():
    """`height, width = 384, 384` (KernelBench level 2's 65) left 2.4M-element inputs a CPU could not scale."""
    src = SRC.replace("N = 2048 * 2\n", "height, width = 384, 384\n").replace(
        "torch.rand(batch_size, N)", "torch.rand(batch_size, height, width)")
    consts = {c.name: c.value for c in P.size_constants(src)}
    assert consts["height"] == consts["width"] == 384
    assert "height, width = 192, 383\n" in P.with_constants(src, {"height": 192, "width": 383})


# Sizes in a ratio: the transposed convolution doubles the length, and the LayerNorm normalises the last axis
# over `out_channels` features, so the problem runs only while out_channels == 2 x length (KernelBench level 2's
# 3 and 34 have this coincidence: `norm_shape = (out_channels,)` equals the output's width at their own sizes).
RATIO = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_channels, out_channels, norm_shape):
        super().__init__()
        self.up = nn.ConvTranspose1d(in_channels, out_channels, 4, stride=2, padding=1)
        self.norm = nn.LayerNorm(norm_shape)

    def forward(self, x):
        return self.norm(self.up(x))

batch_size = 64
in_channels = 64
out_channels = 2048
length = 1024
norm_shape = (out_channels,)

def get_inputs():
    return [torch.rand(batch_size, in_channels, length)]

def get_init_inputs():
    return [in_channels, out_channels, norm_shape]
"""


def test_rescale_keeps_ratios():
    assert P.rescale(16, 5, 4) == 20 and P.rescale(8, 3, 4) == 6 and P.rescale((32, 3), 5, 4) == (40, 3)
    assert P.rescale(P.IntList([8, 16]), 1, 2) == (4, 8) and isinstance(P.rescale(P.IntList([8]), 5, 4), P.IntList)


def test_cpu_plan_keeps_a_ratio_the_problem_needs():
    """Halving the largest size first breaks out_channels == 2 x length at every step; the plan then halves
    every size together (one common factor) and runs."""
    from verifier.worker_reference import _forward_once, plan_small

    consts = P.size_constants(RATIO)
    blind = plan_small(RATIO, consts, 1 << 15, 1 << 16)
    with pytest.raises(RuntimeError, match="normalized_shape"):
        _forward_once(P.with_constants(RATIO, blind), "cpu")
    vals = plan_small(RATIO, consts, 1 << 15, 1 << 16, device="cpu")
    assert vals["out_channels"] == 2 * vals["length"] and vals["out_channels"] < 2048, vals
    assert vals["batch_size"] * vals["in_channels"] * vals["length"] <= 1 << 15
    _forward_once(P.with_constants(RATIO, vals), "cpu")


def test_a_problem_that_runs_only_at_its_own_sizes():
    """A module whose LayerNorm width is a literal in the model runs at no scaled-down size: at its own sizes it
    is planned as it is when they are under the CPU's hard limit, and otherwise refused with a message that
    says so."""
    from verifier.worker_reference import _forward_once, plan_small

    fixed = RATIO.replace("nn.LayerNorm(norm_shape)", "nn.LayerNorm((2048, 2048))")
    assert fixed != RATIO
    with pytest.raises(P.ProblemError, match="runs at none of the scaled-down sizes.*too large for CPU"):
        plan_small(fixed, P.size_constants(fixed), 1 << 15, 1 << 16, device="cpu")
    own = fixed.replace("batch_size = 64", "batch_size = 2").replace("in_channels = 64", "in_channels = 16")
    vals = plan_small(own, P.size_constants(own), 1 << 14, 1 << 15, device="cpu")
    assert vals == {c.name: c.value for c in P.size_constants(own) if c.scalable}
    _forward_once(P.with_constants(own, vals), "cpu")


def test_retries_at_other_sizes_stay_within_half_the_time_limit():
    """A slow reference (KernelBench level 3's SwinV2 on a loaded 2-core CPU: 78 s of a 90 s limit before any
    retry) gets no retries at other sizes when one more trial and those still to come would pass half the limit."""
    import time

    from verifier.worker_reference import RETRY_S, _may_retry

    now = time.monotonic()
    assert _may_retry(0.0, now - 5, 1.0, 2, 90.0) is None and _may_retry(0.0, now - 80, 9.0, 2, None) is None
    assert "half" in _may_retry(0.0, now - 30, 5.0, 2, 90.0)  # 30 s + 3 trials of 5 s > 45 s
    assert "stop after" in _may_retry(RETRY_S + 1, now, 0.1, 0, 90.0)


def test_large_plan_grows_past_the_problems_own_sizes_within_the_budget():
    """The "large" variant: odd sizes past next_power_of_2 of the problem's own (a fixed block of 512 misses a 513th
    column), kept to the budget by halving the smallest sizes first; when the problem's own sizes already fill the
    budget, only sizes above the base trials' are checked and the note says so. Planned on the meta device."""
    from verifier.worker_reference import plan_large, plan_small

    assert P.grow(320) == 513 and P.grow(256) == 385 and P.grow((16, 3)) == (25, 3)
    rows = SRC.replace("N = 2048 * 2", "N = 320")
    consts = P.size_constants(rows)
    own = {c.name: c.value for c in consts if c.scalable}
    plans, note = plan_large(rows, consts, own, 1 << 15, 1 << 16)
    assert note is None and plans[0][0]["batch_size"] == 25 and plans[0][0]["N"] == 513, plans
    src = SRC.replace("N = 2048 * 2", "N = 16384").replace("shape = (32768,)\n", "")  # 16 x 16384: over the CPU budget
    consts = P.size_constants(src)
    small = plan_small(src, consts, 1 << 15, 1 << 16)
    plans, note = plan_large(src, consts, small, 1 << 15, 1 << 16)
    big = plans[0][0]
    assert big["N"] > small["N"] and big["batch_size"] * big["N"] <= 1 << 15, (small, big)
    assert "no size above the problem's own fits" in note and "N exceed the base trials' only" in note, note
    plans, note = plan_large(src, consts, {**small, "N": 1 << 15}, 1 << 15, 1 << 16)  # nothing above the base fits
    assert plans == [] and "no size above the base trials' fits" in note
    own = {"batch_size": 16, "N": 16384}
    plans, note = plan_large(src, consts, own, 1 << 28, 1 << 29)  # the GPU budget: above the problem's own
    assert note is None and plans[0][0]["N"] == 24577 and plans[0][0]["batch_size"] == 25
