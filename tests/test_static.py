"""Parse and static layers on small hand-written candidates (no sandbox: pure AST)."""
import textwrap

import pytest

from verifier.static_check import check_candidate

PROBLEM = textwrap.dedent("""
    import torch
    import torch.nn as nn
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
        def forward(self, x):
            return torch.relu(x)
    n = 1024
    def get_inputs():
        return [torch.randn(n)]
    def get_init_inputs():
        return []
""")

HEAD = textwrap.dedent("""
    import torch
    import torch.nn as nn
    import triton
    import triton.language as tl

    @triton.jit
    def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)
""")

HONEST_FORWARD = """
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
"""


def cand(forward_body: str = HONEST_FORWARD, extra: str = "", init_body: str = "") -> str:
    return HEAD + extra + textwrap.dedent("""
    class ModelNew(nn.Module):
        def __init__(self):
            super().__init__()
    """) + textwrap.indent(textwrap.dedent(init_body), " " * 8) + \
        "\n    def forward(self, x):\n" + textwrap.indent(textwrap.dedent(forward_body), " " * 8)


def rules(src: str) -> set[str]:
    return {f.rule for f in check_candidate(src, PROBLEM)}


def test_honest_candidate_passes():
    assert rules(cand()) == set()


@pytest.mark.parametrize("src", [
    cand(extra='\n"""Computes what torch.relu(x) or torch.matmul would, in Triton."""\n'),
    cand(HONEST_FORWARD.replace("y = torch.empty_like(x)", "# like torch.relu\n        x = x.contiguous().view(-1)\n"
                                "        y = torch.empty(x.shape, dtype=x.dtype, device=x.device)")),
    cand(HONEST_FORWARD.replace("relu_kernel[(triton.cdiv(x.numel(), 1024),)]",
                                "relu_kernel[lambda meta: (triton.cdiv(x.numel(), meta['BLOCK']),)]")),
    cand("return launch(x)\n", extra="\ndef launch(x):\n    y = torch.empty_like(x)\n"
         "    relu_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)\n    return y\n"),
    cand(HONEST_FORWARD, init_body="self.weight = nn.Parameter(torch.randn(4))\nself.block = 1024\n"),
])
def test_honest_patterns_pass(src):
    assert rules(src) == set()


@pytest.mark.parametrize("body,extra,rule", [
    ("return torch.relu(x)\n", "", "torch-compute"),
    ("return x.clamp(min=0)\n", "", "torch-compute"),
    ("return x @ x\n", "", "torch-compute"),
    ("return x * (x > 0)\n", "", "torch-compute"),
    ("return torch.nn.functional.relu(x)\n", "", "torch-compute"),
    ("y = torch.empty_like(x)\nrelu_kernel[(1,)](x, y, 1, BLOCK=1)\nreturn y.sum() + y\n", "", "torch-compute"),
    ("try:\n    return k(x)\nexcept Exception:\n    return torch.relu(x)\n", "", "try-except-fallback"),
    ("return getattr(torch, 'relu')(x)\n", "", "forbidden-call"),
    ("return eval('torch.relu(x)')\n", "", "forbidden-call"),
    ("return torch.ops.aten.relu(x)\n", "", "forbidden-call"),
    ("return torch.compile(lambda t: t)(x)\n", "", "forbidden-call"),
    ("return Model()(x)\n", "", "reference-reuse"),
    ("return x.__class__(x)\n", "", "reflection"),
    ("return globals()['torch'].relu(x)\n", "", "reflection"),
    ("self.cache = x\nreturn x\n", "", "state-in-forward"),
    ("return launch(x)\n", "\ndef launch(x, _memo={}):\n    _memo[x.shape] = x\n    return x\n", "state-in-forward"),
    ("return launch(x)\n", "\ndef launch(x):\n    launch.last = x\n    return x\n", "state-in-forward"),
    ("CACHE[0] = x\nreturn x\n", "\nCACHE = {}\n", "state-in-forward"),
    ("if self.training:\n    return x\nreturn x\n", "", "mode-dependent"),
    ("if torch.is_grad_enabled():\n    return x\nreturn x\n", "", "mode-dependent"),
    ("if x.is_cuda:\n    return x\nreturn x\n", "", "mode-dependent"),
    ("if x.device.type == 'cuda':\n    return x\nreturn x\n", "", "mode-dependent"),
    ("return x\n", "\ntorch.allclose = lambda *a, **k: True\n", "monkey-patch"),
    ("return x\n", "\ntorch.cuda.Event.elapsed_time = lambda *a: 1e-3\n", "monkey-patch"),
    ("return x\n", "\ntriton.jit = lambda f: f\n", "monkey-patch"),
    ("return x\n", "\nimport numpy as np\n", "forbidden-import"),
    ("return x\n", "\nimport threading\n", "forbidden-import"),
    ("return x\n", "\nfrom concurrent.futures import ThreadPoolExecutor\n", "forbidden-import"),
    ("return x\n", "\nimport time\n", "forbidden-import"),
    ("return x\n", "\nimport inspect\n", "forbidden-import"),
    ("return x\n", "\nimport importlib\n", "forbidden-import"),
    ("return x\n", "\nfrom functools import lru_cache\n", "forbidden-import"),
    ("return x\n", "\nclass Fake(torch.Tensor):\n    def __eq__(self, o):\n        return True\n", "tensor-subclass"),
    ("return x\n", "\ntorch.manual_seed(0)\n", "module-side-effect"),
])
def test_cheats_are_named(body, extra, rule):
    assert rule in rules(cand(body, extra))


@pytest.mark.parametrize("body,extra,rule", [
    # stdlib modules reached through the allowed ones' attributes: sys.modules is the whole process
    ("s = torch.sys.modules\nreturn x\n", "", "forbidden-import"),
    ("m = torch.nn.modules.module\nreturn x\n", "", "forbidden-import"),
    ("return torch.nn.functional.torch.relu(x)\n", "", "forbidden-import"),
    ("pa = torch.nn.parallel.parallel_apply\nreturn x\n", "", "forbidden-import"),
    ("return x\n", "\nimport typing\nS = typing.sys\n", "forbidden-import"),
    ("t = torch\nreturn t.os\n", "", "forbidden-import"),
    # modules as values (after which no attribute chain can be followed)
    ("return launch(torch, x)\n", "\ndef launch(m, x):\n    return x\n", "reflection"),
    ("self.lib = torch\nreturn x\n", "", "reflection"),
    # frames of generators reach the caller's globals
    ("g = (i for i in [0])\nf = g.gi_frame.f_back\nreturn x\n", "", "reflection"),
    # files: the worker's inbox holds the trials' inputs
    ("return x\n", "\ndef _read():\n    return torch.load('/sandbox/inbox/for_candidate.pt')\n", "forbidden-call"),
    ("s = x.untyped_storage().from_file('f', False, 4)\nreturn x\n", "", "forbidden-call"),
    # Python in kernel code (the interpreter would run it)
    ("return x\n", "\n@triton.jit\ndef k2(p, B: tl.constexpr):\n    v = tl.load(p + tl.arange(0, B))\n"
     "    a = v.handle.data\n", "forbidden-call"),
    ("return x\n", "\ndef helper(v):\n    return v\n\n@triton.jit\ndef k2(p, B: tl.constexpr):\n"
     "    tl.store(p, helper(tl.load(p)))\n", "forbidden-call"),
    ("return x\n", "\n@triton.jit\ndef k2(p, B: tl.constexpr):\n    v = tl.load(p)\n    s = str(v)\n",
     "forbidden-call"),
    ("return x\n", "\n@triton.jit\ndef k2(p, B: tl.constexpr):\n    v = tl.load(p)\n    y = float(v)\n",
     "forbidden-call"),
    # a helper named (not called) in forward is on the forward path
    ("h = helper\nreturn h(x)\n", "\ndef helper(t):\n    return t.clamp(min=0)\n", "torch-compute"),
])
def test_escapes_are_named(body, extra, rule):
    assert rule in rules(cand(body, extra))


@pytest.mark.parametrize("body,extra", [
    ("F2 = torch.nn.functional\nreturn x\n", ""),
    ("return x\n", "\nfrom triton.language.extra import libdevice\n\n@triton.jit\ndef k2(p, B: tl.constexpr):\n"
     "    v = tl.load(p + tl.arange(0, B))\n    m = float('-inf')\n    tl.store(p, libdevice.tanh(v) + m + min(B, 4))\n"),
    ("return x\n", "\n@triton.jit\ndef act(v):\n    return tl.maximum(v, 0.0)\n\n@triton.jit\n"
     "def k2(p, FN: tl.constexpr, B: tl.constexpr):\n    for i in range(0, B, 4):\n        tl.store(p, FN(act(tl.load(p))))\n"),
    ("y = torch.empty(x.shape, dtype=torch.float32, device=x.device)\nreturn y\n", ""),
])
def test_honest_patterns_near_the_escape_rules_pass(body, extra):
    assert rules(cand(body, extra)) == set()


def test_parse_layer():
    assert rules("def f(:\n") == {"syntax-error"}
    assert rules(HEAD) == {"missing-modelnew"}
    bad_sig = cand().replace("def forward(self, x):", "def forward(self, x, y, z):")
    assert rules(bad_sig) == {"signature-mismatch"}


def test_no_kernel():
    src = "import torch\nimport torch.nn as nn\nclass ModelNew(nn.Module):\n    def forward(self, x):\n        return x\n"
    assert "no-triton-kernel" in rules(src)


def test_findings_carry_lines():
    f = [f for f in check_candidate(cand("return torch.relu(x)\n"), PROBLEM) if f.rule == "torch-compute"][0]
    assert f.line and "torch.relu" in f.message


KERNEL_OF = """
@triton.jit
def k2(x_ptr, y_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    {body}
    tl.store(y_ptr + offs, x, mask=offs < n)
"""


@pytest.mark.parametrize("body", [
    "q = tl.sum(x.to(tl.int32)); x = x * math.ldexp(q, -20)",   # math on a value the kernel loaded
    "x = x * math.sqrt(n)",                                      # n is a runtime argument
])
def test_kernel_math_on_runtime_values_is_named(body):
    src = cand(extra="import math\n" + KERNEL_OF.format(body=body))
    assert "forbidden-call" in rules(src)


@pytest.mark.parametrize("body", ["x = x * math.sqrt(D)", "x = x * (1.0 / math.sqrt(2.0 * D + 1))"])
def test_kernel_math_on_constexprs_passes(body):
    assert rules(cand(extra="import math\n" + KERNEL_OF.format(body=body))) == set()


@pytest.mark.parametrize("extra", [
    # a @triton.jit def inside a class is kernel code too
    "class K:\n    @triton.jit\n    def k(x_ptr):\n        tl.store(x_ptr, str(tl.load(x_ptr)))\n",
    # triton.jit of something that is not a top-level function
    "k3 = triton.jit(lambda x: x)\n",
])
def test_kernel_code_outside_top_level_defs_is_checked(extra):
    assert "forbidden-call" in rules(cand(extra=extra))


CHEAT_FN = """
def _impl(self, x):
    return torch.relu(x)
"""


@pytest.mark.parametrize("binding", ["forward = _impl", "__call__ = _impl", "_call_impl = _impl",
                                     "__getattr__ = lambda self, name: _impl"])
def test_call_path_bound_by_assignment_in_the_class_body_is_refused(binding):
    """The rules read the def'd forward; a class-body `forward = _impl` is the one Python calls (red team round 4)."""
    src = cand(extra=CHEAT_FN) + f"\n    {binding}\n"
    assert "monkey-patch" in rules(src)


@pytest.mark.parametrize("init_body", [
    "self._forward_hooks[0] = lambda m, i, o: torch.relu(i[0])",      # nn.Module's hook dict, not register_*
    "self._forward_pre_hooks.update({0: print})",
    "r = self.register_forward_hook\nr(lambda m, i, o: o)",            # the registration named, not called
])
def test_hooks_installed_without_a_register_call_are_refused(init_body):
    assert rules(cand(init_body=init_body)) & {"reflection", "forbidden-call"}


@pytest.mark.parametrize("extra, init_body, forward_body", [
    # a method named, then called through a local name
    ("", "", "g = self._other\nreturn g(x)"),
    # a method of a plain helper object made in __init__
    ("class Helper:\n    def run(self, m, x):\n        return x if m.training else torch.relu(x)\n",
     "self.h = Helper()", "return self.h.run(self, x)"),
    # a dunder of a helper object, run by the subscript
    ("class Table:\n    def __getitem__(self, x):\n        return torch.relu(x)\n",
     "self.t = Table()", "return self.t[x]"),
])
def test_code_that_forward_reaches_without_calling_it_by_name_is_on_the_forward_path(extra, init_body, forward_body):
    src = cand(forward_body=forward_body, extra=extra, init_body=init_body)
    if "_other" in forward_body:
        src += "\n    def _other(self, x):\n        return torch.relu(x)\n"
    assert rules(src) & {"torch-compute", "mode-dependent"}, src


def test_helper_methods_run_only_at_construction_may_use_torch():
    """reset_parameters called from __init__ initialises with torch (nn.init): construction, not forward."""
    src = cand(init_body="self.w = nn.Parameter(torch.empty(4))\nself.reset_parameters()") + (
        "\n    def reset_parameters(self):\n        nn.init.uniform_(self.w)\n        self.w.data.mul_(2.0)\n")
    assert rules(src) == set(), rules(src)


@pytest.mark.parametrize("method", ["def train(self, mode=True):\n        self.fast = mode\n        return self",
                                    "def to(self, *args, **kwargs):\n        return self",
                                    "def named_parameters(self, *a, **k):\n        return iter(())"])
def test_overriding_nn_module_methods_is_refused(method):
    """eval() calls train(False): an override kept the mode in an attribute of its own that forward branched on."""
    assert "monkey-patch" in rules(cand() + "\n    " + method + "\n")


@pytest.mark.parametrize("probe", ["x.get_device() < 0", "x.device.index is None", "not torch.cuda.is_available()",
                                   "x.device == torch.device('cpu')", "torch.cuda.device_count() == 0",
                                   "'cpu' in str(x.device)", "d.index is None", "f'{d}' == 'cpu'"])
def test_forward_may_not_look_at_the_device(probe):
    """A candidate verified on a CPU that branches on the device runs other code on the user's GPU (round 4)."""
    body = f"d = x.device\ny = torch.empty_like(x, device=d)\nn = x.numel() if {probe} else 1024\n" \
           "relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)\nreturn y\n"
    assert "mode-dependent" in rules(cand(forward_body=body))


def test_forward_may_pass_the_device_along():
    body = "d = x.device\ny = torch.empty(x.shape, device=d, dtype=x.dtype).to(x.device)\n" \
           "relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)\nreturn y\n"
    assert rules(cand(forward_body=body)) == set()


@pytest.mark.parametrize("extra", [
    "_SHARE = 1 if 'Interpreted' in type(relu_kernel).__name__ else 8\n",   # InterpretedFunction vs JITFunction
    "_GPU = hasattr(relu_kernel, 'device_caches')\n",
    "_GPU = 'Interpreted' not in str(relu_kernel)\n",
    "_GPU = f'{relu_kernel}'.startswith('<triton.runtime.jit')\n",
    "_SRC = relu_kernel.fn\n",
])
def test_kernel_objects_are_launched_not_inspected(extra):
    """The kernel object's type tells the CPU verifier (Triton's interpreter) from the user's GPU (round 4)."""
    assert "reflection" in rules(cand(extra=extra))


@pytest.mark.parametrize("extra, call", [
    ("def _make():\n    seen = []\n    def tick():\n        seen.append(1)\n        return len(seen)\n    return tick\n"
     "_tick = _make()\n", "_tick()"),
    ("def _make():\n    box = [0]\n    def tick():\n        box[0] += 1\n        return box[0]\n    return tick\n"
     "_tick = _make()\n", "_tick()"),
])
def test_a_counter_in_a_closure_is_state(extra, call):
    """forward called a closure a module-level factory built: its body was never on the forward path (round 4)."""
    body = f"n = x.numel() if {call} < 1000 else 8\ny = torch.empty_like(x)\n" \
           "relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)\nreturn y\n"
    assert "state-in-forward" in rules(cand(forward_body=body, extra=extra))


def test_a_helper_forward_defines_and_calls_on_its_own_variables_is_not_state():
    body = "outs = []\ndef launch(t):\n    y = torch.empty_like(t)\n" \
           "    relu_kernel[(triton.cdiv(t.numel(), 1024),)](t, y, t.numel(), BLOCK=1024)\n    outs.append(y)\n" \
           "launch(x)\nreturn outs[0]\n"
    assert rules(cand(forward_body=body)) == set()


SCALAR_PROBLEM = PROBLEM.replace("def forward(self, x):", "def forward(self, x, limit, factor):").replace(
    "return [torch.randn(n)]", "return [torch.randn(n), 0.5, factor]").replace("n = 1024", "n = 1024\nfactor = 3")


def scalar_cand(forward_body: str, extra: str = "", signature: str = "x, limit, factor") -> str:
    return cand(forward_body, extra).replace("def forward(self, x):", f"def forward(self, {signature}):")


@pytest.mark.parametrize("body,extra,signature", [
    # forward's numbers from get_inputs(): host arithmetic on them is not torch compute
    ("lo = -limit\nhi = 1.0 / limit\nfactor *= 2\n" + textwrap.dedent(HONEST_FORWARD), "", "x, limit, factor"),
    # the same known from annotations when the problem is not given
    ("lo = -limit\n" + textwrap.dedent(HONEST_FORWARD), "", "x: torch.Tensor, limit: float, factor: Optional[int] = None"),
    # a helper of the launch that does arithmetic on block counts (every call passes numbers)
    ("y = torch.empty_like(x)\nrelu_kernel[(nblocks(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)\nreturn y\n",
     "\ndef nblocks(n, block=128):\n    return (n + block - 1) // block\n", "x, limit, factor"),
    ("B = x.shape[0]\nrows = B * 2\ny = torch.empty_like(x)\nrelu_kernel[grid_for(rows, self.block)](x, y, x.numel(), "
     "BLOCK=256)\nreturn y\n", "\ndef grid_for(n: int, block: int) -> tuple:\n    return (n // block + 1,)\n",
     "x, limit, factor"),
])
def test_arithmetic_on_python_numbers_passes(body, extra, signature):
    src = scalar_cand(body, "\nfrom typing import Optional\n" + extra, signature).replace(
        "super().__init__()", "super().__init__()\n        self.block = 128")
    assert {f.rule for f in check_candidate(src, SCALAR_PROBLEM)} == set()


@pytest.mark.parametrize("body,extra", [
    ("return x * limit\n", ""),                                           # x is a tensor
    ("return add(x, x)\n", "\ndef add(a, b):\n    return a + b\n"),     # a helper passed a tensor
    ("h = add\nk = add(1, 2)\nreturn h(x, x)\n", "\ndef add(a, b):\n    return a + b\n"),  # named, not only called
    ("return scale(x, 2.0)\n", "\ndef scale(t: int, f: float):\n    return t * f\n"),  # an annotation that lies
    ("return -x\n", ""),
])
def test_arithmetic_on_tensors_is_still_torch_compute(body, extra):
    assert "torch-compute" in {f.rule for f in check_candidate(scalar_cand(body, extra), SCALAR_PROBLEM)}


def test_dataclass_configs_pass_and_modules_imported_by_name_are_refused():
    extra = ("\nfrom dataclasses import dataclass, field\nimport dataclasses\n\n@dataclass(frozen=True)\nclass Cfg:\n"
             "    block: int = 256\n    warps: list = field(default_factory=list)\n\nC2 = dataclasses.replace(Cfg(), "
             "block=128)\n")
    assert rules(cand(HONEST_FORWARD, extra)) == set()
    for bad in ("\nfrom typing import sys\n", "\nfrom dataclasses import sys\n", "\nfrom dataclasses import _FIELDS\n",
                "\nimport dataclasses\nS = dataclasses.sys\n"):
        assert "forbidden-import" in rules(cand(HONEST_FORWARD, bad)), bad


MAIN_BLOCK = """
if __name__ == "__main__":
    import time
    x = torch.randn(4096, device="cuda")
    m = ModelNew()
    torch.testing.assert_close(m(x), torch.relu(x))
    print("ms", triton.testing.do_bench(lambda: m(x)), time.time())
"""


def test_a_self_test_under_the_main_guard_is_not_candidate_code():
    assert rules(cand() + MAIN_BLOCK) == set()
    # the block runs only where __name__ is "__main__": not when imported, unless the candidate rebinds __name__
    assert rules(cand() + "\n__name__ = '__main__'\n" + MAIN_BLOCK) == {"monkey-patch"}
    assert "module-side-effect" in rules(cand() + MAIN_BLOCK.replace("==", "!="))
    assert "forbidden-import" in rules(cand() + MAIN_BLOCK.replace("if __name__", "if True or __name__"))


@pytest.mark.parametrize("decorator,method", [
    ("@staticmethod", "def _grid(n):\n        return ((n + 1023) // 1024,)\n"),
    ("@classmethod", "def _grid(cls, n):\n        return ((n + 1023) // 1024,)\n"),
    ("@property", "def _grid(self):\n        return (4,)\n"),
])
def test_builtin_method_decorators_on_forward_path_helpers_pass(decorator, method):
    call = "self._grid" if decorator == "@property" else "self._grid(x.numel())"
    src = cand(f"y = torch.empty_like(x)\nrelu_kernel[{call}](x, y, x.numel(), BLOCK=1024)\nreturn y\n")
    src = src.replace("    def forward(self, x):", f"    {decorator}\n    {method}\n    def forward(self, x):")
    assert rules(src) == set()


def test_no_grad_and_shape_helpers_pass_in_forward():
    body = ("with torch.no_grad():\n    s = torch.broadcast_shapes(x.shape, (1,))\n    y = torch.empty(s, device=x.device)\n"
            "    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)\nreturn y\n")
    assert rules(cand(body)) == set()
    assert rules(cand().replace("    def forward", "    @torch.no_grad()\n    def forward")) == set()
    # a decorator of the candidate's own, or a builtin's name rebound, is still refused
    own = cand(extra="\ndef memo(f):\n    return f\n").replace("    def forward", "    @memo\n    def forward")
    assert "state-in-forward" in rules(own)
    rebound = cand(extra="\ndef staticmethod(f):\n    return f\n").replace("    def forward", "    @staticmethod\n    def forward")
    assert "state-in-forward" in rules(rebound)


def test_kernel_decorators_are_host_code_and_itertools_builds_configs():
    """@triton.autotune(configs=get_autotune_config()) (the Triton tutorial's matmul) was checked as kernel code: a call
    to a module-level function, refused; a module-level config list too."""
    extra = ("\nimport itertools\n\ndef get_configs():\n    return [triton.Config({'B': b}, num_warps=w) for b, w in "
             "itertools.product([128, 256], [2, 4])]\n\n@triton.autotune(configs=get_configs(), key=['n'])\n"
             "@triton.jit\ndef k2(p, n, B: tl.constexpr):\n    tl.store(p + tl.arange(0, B), 0.0)\n")
    assert rules(cand(HONEST_FORWARD, extra)) == set()
    # the body is still kernel code
    assert "forbidden-call" in rules(cand(HONEST_FORWARD, extra.replace("tl.store(p + tl.arange(0, B), 0.0)",
                                                                        "tl.store(p, get_configs())")))


AUTOGRAD = """
class _Relu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.empty_like(x)
        relu_kernel[lambda meta: (ceil_div(x.numel(), meta['BLOCK']),)](x, y, x.numel(), BLOCK=1024)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        y, = ctx.saved_tensors
        return dy * (y > 0)

def ceil_div(a, b):
    return (a + b - 1) // b
"""


def test_a_kernel_wrapped_in_an_autograd_function_passes_and_its_backward_is_not_forward_code():
    assert rules(cand("return _Relu.apply(x)\n", AUTOGRAD)) == set()
    assert rules(cand("return _Relu.apply(x)\n", "\nfrom torch.autograd import Function\n" +
                      AUTOGRAD.replace("torch.autograd.Function", "Function"))) == set()
    # backward named in forward runs there; the rest of torch.autograd stays out of reach
    assert "torch-compute" in rules(cand("return _Relu.backward(None, x)\n", AUTOGRAD))
    assert "forbidden-call" in rules(cand("return torch.autograd.grad(x, x)\n", AUTOGRAD))
    assert "forbidden-import" in rules(cand("return x\n", "\nfrom torch.autograd import grad\n"))
    # a grid's meta dict holds numbers; a tensor passed to the same helper is still refused
    assert "torch-compute" in rules(cand("return _Relu.apply(x)\n", AUTOGRAD.replace("ceil_div(x.numel(),",
                                                                                      "ceil_div(x,")))


def test_a_small_table_made_from_python_values_is_allocation():
    body = ("table = torch.tensor([0.5, 1.0, 2.0], device=x.device, dtype=x.dtype)\ny = torch.empty_like(x)\n"
            "relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)\nreturn y\n")
    assert rules(cand(body)) == set()
    assert "torch-compute" in rules(cand("return torch.tensor(x.tolist())\n"))


def test_a_submodule_of_the_candidates_own_class_may_be_called():
    own = "\nclass TritonReLU(nn.Module):\n    def forward(self, x):\n        y = torch.empty_like(x)\n" \
          "        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)\n        return y\n"
    assert rules(cand("return self.act(x)\n", own, init_body="self.act = TritonReLU()\n")) == set()
    # a torch module, or one of the candidate's classes that computes with torch, is still refused
    assert "torch-compute" in rules(cand("return self.act(x)\n", own, init_body="self.act = nn.ReLU()\n"))
    assert "torch-compute" in rules(cand("return self.act(x)\n", own.replace(
        "relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)", "y = x.clamp(min=0)"),
        init_body="self.act = TritonReLU()\n"))
    # a class of the candidate's that inherits a torch module's forward is a torch module
    assert "torch-compute" in rules(cand("return self.act(x)\n", "\nclass Act(nn.ReLU):\n    pass\n",
                                         init_body="self.act = Act()\n"))


def test_a_module_level_infinity_is_a_constant_in_kernel_code():
    extra = ("\nNEG_INF: tl.constexpr = float('-inf')\n\n@triton.jit\ndef k2(p, B: tl.constexpr):\n"
             "    tl.store(p + tl.arange(0, B), tl.load(p + tl.arange(0, B), mask=tl.arange(0, B) < 3, other=NEG_INF))\n")
    assert rules(cand(HONEST_FORWARD, extra)) == set()
    assert "forbidden-call" in rules(cand(HONEST_FORWARD, extra.replace("float('-inf')", "float(str('-inf'))")))


_N8 = "y = torch.empty_like(x)\nrelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)\nreturn y\n"


@pytest.mark.parametrize("extra, body", [
    ("", "me = self\nme.calls = 1\n"),                                       # another name for self
    ("", "me = (self,)[0]\nme.calls = 1\n"),
    ("", "for m in [self]:\n    m.calls = 1\n"),
    ("_CALLS = []\n", "box = _CALLS\nbox.append(1)\n"),                     # another name for a module-level list
    ("_CALLS = [0]\n", "box = _CALLS\nbox[0] = box[0] + 1\n"),
    # a module-level list handed to a helper, which appends to its parameter
    ("_CALLS = []\ndef _count(log):\n    log.append(1)\n    return len(log)\n", "_count(_CALLS)\n"),
    ("def _bump(m):\n    m.calls = 1\n", "_bump(self)\n"),
    ("_TICKS = iter(range(1000))\n", "next(_TICKS, None)\n"),                # an iterator's position
    ("", "next(self.ticks, None)\n"),
])
def test_state_kept_through_another_name_is_state(extra, body):
    """Round 5: the store and mutation rules looked for 'self' or a module-level name as the root; an alias (me = self),
    a helper's parameter or next() on a module-level iterator kept a call counter in plain Python."""
    src = cand(forward_body=body + "n = x.numel()\n" + _N8, extra=extra)
    assert "state-in-forward" in rules(src)


def test_locals_forward_made_may_be_changed():
    body = "n = x.numel()\nshape = list(x.shape)\nshape[0] = shape[0]\nparts = []\nparts.append(n)\n" \
           "meta = {}\nmeta['n'] = n\nz = x.new_zeros(4)\nz[0] = 1\n" + _N8
    assert rules(cand(forward_body=body)) == set()


def test_a_name_never_imported_or_defined_is_refused():
    """Round 5: Triton's interpreter copies its globals (numpy as np, inspect, time) into a kernel's module at the first
    launch; a candidate read `np` without importing it and computed in numpy on the CPU verifier."""
    body = "y = torch.empty_like(x)\nrelu_kernel[(1,)](x, y, 1, BLOCK=16)\nnp.copyto(y, 0.0)\nreturn y\n"
    assert "undefined-name" in rules(cand(forward_body=body))
    assert "undefined-name" in rules(cand(forward_body="t0 = time.perf_counter()\n" + textwrap.dedent(HONEST_FORWARD)))


def test_star_imports_of_allowed_modules_bind_their_names():
    src = cand().replace("import triton.language as tl\n", "import triton.language as tl\nfrom math import *\n")
    src = src.replace("return y\n", "k = floor(2.5)\nreturn y\n")
    assert "undefined-name" not in rules(src)


@pytest.mark.parametrize("expr", ["self.flag._version", "x._version", "x._use_count()", "x._base", "x._cdata"])
def test_private_attributes_of_tensors_are_refused(expr):
    """Round 5: self.flag.zero_() on a buffer of zeros each call (values unchanged) made `_version` a call counter."""
    body = f"k = {expr}\n" + textwrap.dedent(HONEST_FORWARD)
    assert "reflection" in rules(cand(forward_body=body))


def test_a_candidates_own_private_attributes_are_its_own():
    body = "n = self._base + x.numel() * 0\n" + textwrap.dedent(HONEST_FORWARD)
    assert "reflection" not in rules(cand(forward_body=body, init_body="self._base = 0\n"))


def test_modelnew_on_a_base_that_is_never_imported_says_so():
    """A model's candidate that dropped its imports: the finding names the missing import, not "ModelNew must
    subclass nn.Module (it subclasses nn.Module)" (seen on KernelBench's L1 norm, 2026-12-05)."""
    from verifier.static_check import check_candidate

    src = ("import torch\nimport triton\n\n\n@triton.jit\ndef k(x_ptr):\n    pass\n\n\nclass ModelNew(nn.Module):\n"
           "    def forward(self, x):\n        return x\n")
    found = [(f.rule, f.message) for f in check_candidate(src)]
    assert any(r == "undefined-name" and "'nn' is never imported" in m for r, m in found), found
    assert not any("must subclass" in m for _, m in found), found
    bad_base = check_candidate("import torch.nn as nn\n" + src.replace("(nn.Module)", "(object)"))
    assert any("must subclass nn.Module (it subclasses object)" in f.message for f in bad_base)
