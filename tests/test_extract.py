"""From a user's file and a class to a self-contained problem (training.extract)."""
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
from training.extract import ExtractError, NeedsInputs, extract_problem, modules_in
from verifier import verify
from verifier.problem import ProblemError, parse_problem

FILE = (ROOT / "tests" / "files" / "transformer.py").read_text()


def loads_in_fresh_interpreter(src: str) -> str:
    code = src + "\nm = Model(*get_init_inputs())\nout = m(*get_inputs())\nprint(tuple(out.shape))\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_modules_listed_despite_a_syntax_error_elsewhere():
    names = [n for n, _, _ in modules_in(FILE)]
    assert names == ["RMSNorm", "MLP", "Attention", "Block"]


TRICKY = textwrap.dedent("""\
    import torch.nn as nn
    @decorator

    class A(nn.Module):
        x = (1,
    2)

    class B(A):
        pass

    def broken(:
      pass
    class C(nn.Module):
        '''doc
    class D(nn.Module):
    '''
        pass
    """)


@pytest.mark.parametrize("src", [FILE, TRICKY, (ROOT / "tests" / "files" / "config_mlp.py").read_text()],
                         ids=["transformer", "tricky", "config_mlp"])
def test_modules_within_lines_equal_the_filtered_full_list(src):
    """The code-action path parses only the statements at the cursor: same answer as the whole file."""
    full = modules_in(src)
    assert full
    n = len(src.splitlines())
    for first in range(0, n + 2):
        for width in (0, 2, 25):
            last = first + width
            assert modules_in(src, (first, last)) == [m for m in full if m[2] >= first and m[1] <= last], \
                (first, last)


def test_class_specific_inputs_and_only_what_it_needs():
    src = extract_problem(FILE, "RMSNorm")
    parse_problem(src)
    assert "class MLP" not in src and "unrelated_broken_helper" not in src and "__main__" not in src
    assert "Model = RMSNorm" in src and "get_inputs = get_inputs_RMSNorm" in src
    assert loads_in_fresh_interpreter(src) == "(2, 16, 64)"


def test_block_pulls_in_classes_helpers_and_constants():
    src = extract_problem(FILE, "Block")
    for needed in ("class RMSNorm", "class MLP", "class Attention", "def gelu_tanh", "HIDDEN = 64", "import math",
                   "import torch.nn.functional as F"):
        assert needed in src
    assert "get_inputs_RMSNorm" not in src
    assert loads_in_fresh_interpreter(src) == "(2, 16, 64)"


def test_missing_inputs_give_a_stub_to_paste():
    src = "import torch\nimport torch.nn as nn\n\nclass Scale(nn.Module):\n    def __init__(self, k):\n" \
          "        super().__init__()\n        self.k = k\n\n    def forward(self, x, y):\n        return x * y * self.k\n"
    with pytest.raises(NeedsInputs) as e:
        extract_problem(src, "Scale")
    assert "get_inputs" in str(e.value) and "never guesses" in str(e.value)
    stub = e.value.stub
    assert "def get_inputs_Scale" in stub and "# x:" in stub and "# y:" in stub and "# k" in stub
    compile(src + "\n" + stub, "f.py", "exec")


def test_unknown_and_broken_classes():
    with pytest.raises(ExtractError, match="no top-level class Nope"):
        extract_problem(FILE, "Nope")
    broken = FILE.replace("class MLP(nn.Module):", "class MLP(nn.Module:")
    with pytest.raises(ExtractError, match="syntax error"):
        extract_problem(broken, "MLP")
    assert "class RMSNorm" in extract_problem(broken, "RMSNorm")  # unaffected
    with pytest.raises(ExtractError, match="needs 'MLP'.*syntax error"):
        extract_problem(broken, "Block")


def test_extracted_problem_verifies_a_candidate():
    src = extract_problem(FILE, "RMSNorm")
    candidate = textwrap.dedent('''
        import torch
        import torch.nn as nn
        import triton
        import triton.language as tl

        @triton.jit
        def rms_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            offs = tl.arange(0, BLOCK)
            m = offs < n_cols
            x = tl.load(x_ptr + row * n_cols + offs, mask=m, other=0.0)
            ms = tl.sum(x * x, axis=0) / n_cols
            w = tl.load(w_ptr + offs, mask=m)
            tl.store(y_ptr + row * n_cols + offs, x / tl.sqrt(ms + eps) * w, mask=m)

        class ModelNew(nn.Module):
            def __init__(self, dim, eps=1e-6):
                super().__init__()
                self.eps = eps
                self.weight = nn.Parameter(torch.ones(dim))

            def forward(self, x):
                x = x.contiguous()
                y = torch.empty_like(x)
                n = x.shape[-1]
                rms_kernel[(x.numel() // n,)](x, self.weight, y, n, self.eps, BLOCK=triton.next_power_of_2(n))
                return y
    ''')
    v = verify(src, candidate, device="cpu")
    assert v.ok, v.summary()


def test_dataclass_config_helper_after_the_class_and_derived_constants():
    src = extract_problem((ROOT / "tests" / "files" / "config_mlp.py").read_text(), "GatedMLP")
    for needed in ("class MLPConfig", "def swish", "HIDDEN = DIM * EXPANSION", "from dataclasses import dataclass"):
        assert needed in src
    assert "class Unused" not in src
    assert loads_in_fresh_interpreter(src) == "(4, 48)"


def test_config_object_init_args_reach_the_candidate():
    """get_init_inputs returning a dataclass: the candidate receives it as a namespace."""
    src = extract_problem((ROOT / "tests" / "files" / "config_mlp.py").read_text(), "GatedMLP")
    candidate = textwrap.dedent('''
        import torch
        import torch.nn as nn
        import triton
        import triton.language as tl

        @triton.jit
        def matmul_kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, act, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr):
            pm, pn = tl.program_id(0), tl.program_id(1)
            rm = pm * BM + tl.arange(0, BM)
            rn = pn * BN + tl.arange(0, BN)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k0 in range(0, K, BK):
                rk = k0 + tl.arange(0, BK)
                x = tl.load(a + rm[:, None] * sam + rk[None, :] * sak, mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
                w = tl.load(b + rk[:, None] * sbk + rn[None, :] * sbn, mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
                acc += tl.dot(x, w)
            tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

        @triton.jit
        def swiglu_kernel(g, u, o, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            a = tl.load(g + offs, mask=m)
            b = tl.load(u + offs, mask=m)
            tl.store(o + offs, a * tl.sigmoid(a) * b, mask=m)

        def linear(x, w):
            M, K = x.shape
            N = w.shape[0]
            out = torch.empty((M, N), device=x.device, dtype=x.dtype)
            matmul_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](x, w, out, M, N, K, x.stride(0), x.stride(1),
                                                                   w.stride(1), w.stride(0), 0, BM=16, BN=16, BK=16)
            return out

        class ModelNew(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.gate = nn.Linear(cfg.dim, cfg.hidden, bias=False)
                self.up = nn.Linear(cfg.dim, cfg.hidden, bias=False)
                self.down = nn.Linear(cfg.hidden, cfg.dim, bias=False)

            def forward(self, x):
                x = x.contiguous()
                g = linear(x, self.gate.weight)
                u = linear(x, self.up.weight)
                h = torch.empty_like(g)
                swiglu_kernel[(triton.cdiv(h.numel(), 256),)](g, u, h, h.numel(), BLOCK=256)
                return linear(h, self.down.weight)
    ''')
    v = verify(src, candidate, device="cpu", trials=1)
    assert v.ok, v.summary()


# Module-level code as users write it: a config changed after it is made, bindings under if/try/for, a
# registry filled by a decorator, a star import. The class needs each one's final value.
STATEFUL = textwrap.dedent('''\
    import torch
    from torch.nn import *
    import torch.nn.functional as F

    try:
        from flash_attn_not_installed import flash
        HAS_FLASH = True
    except ImportError:
        HAS_FLASH = False

    if torch.cuda.is_available():
        device = "cuda"
    else:
        device = "cpu"
    SCALE = 1.0
    if device == "cuda":
        SCALE = 0.5

    CFG = {"dim": 32}
    CFG["hidden"] = CFG["dim"] * 2
    CFG.update(act="tanh")
    LAYERS = [CFG["dim"]]
    LAYERS += [CFG["hidden"], CFG["dim"]]
    ACTS = {}


    def register(name):
        def deco(fn):
            ACTS[name] = fn
            return fn
        return deco


    @register("swish")
    def swish(x):
        return x * torch.sigmoid(x)


    for _name in ("relu", "tanh"):
        ACTS[_name] = getattr(torch, _name)
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(0)
    data = torch.load("/nonexistent/users_data.pt")  # a script line: the class never reads it


    class Net(Module):
        def __init__(self):
            super().__init__()
            self.layers = ModuleList(Linear(a, b) for a, b in zip(LAYERS[:-1], LAYERS[1:]))

        def forward(self, x):
            data = x * SCALE  # a local of the same name as the script's global
            for layer in self.layers:
                data = ACTS[CFG["act"]](layer(data)) + ACTS["swish"](data).sum() * 0
            return flash(data) if HAS_FLASH else data


    def get_inputs():
        return [torch.randn(4, CFG["dim"], device=device)]


    def get_init_inputs():
        return []
    ''')


def test_module_level_state_is_rebuilt_as_the_file_builds_it():
    src = extract_problem(STATEFUL, "Net")
    for needed in ('CFG["hidden"] =', "CFG.update(", "LAYERS +=", "for _name in", '@register("swish")',
                   "from torch.nn import *", "except ImportError", 'device = "cpu"', "SCALE = 0.5",
                   "torch.set_default_dtype"):
        assert needed in src, needed
    assert "torch.load" not in src and "manual_seed" not in src  # a local `data` does not pull the global in
    code = src + "\nout = Model(*get_init_inputs())(*get_inputs())\nprint(tuple(out.shape), out.dtype)\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "(4, 32) torch.float64"  # the file's default dtype holds in the problem too


def test_module_level_state_reaches_the_reference_run():
    from verifier.runner import VerifyConfig, prepare_reference

    cfg = VerifyConfig(device="cpu", trials=1, perturb=1).resolved()
    ref = prepare_reference(extract_problem(STATEFUL, "Net"), cfg)
    try:
        assert ref.shapes[0]["inputs"] == [[4, 32]]
    finally:
        ref.close()


def test_a_name_bound_before_its_use_at_load_time_keeps_that_value():
    """A constant rebound later in the file: a module-level use sees the value before it, as Python does."""
    src = textwrap.dedent('''\
        import torch
        import torch.nn as nn
        DIM = 16
        HIDDEN = DIM * 2
        DIM = 8

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(HIDDEN, DIM)

            def forward(self, x):
                return self.fc(x)

        def get_inputs():
            return [torch.randn(2, HIDDEN)]

        def get_init_inputs():
            return []
        ''')
    assert loads_in_fresh_interpreter(extract_problem(src, "M")) == "(2, 8)"


PROJECT = textwrap.dedent('''\
    import torch
    import torch.nn as nn
    from .utils import gelu
    from tritonrl_user_sibling import swish, CONST
    try:
        import tritonrl_optional_missing
    except ImportError:
        tritonrl_optional_missing = None


    class Head(nn.Module):
        def forward(self, x):
            return gelu(x)


    class Sib(nn.Module):
        def forward(self, x):
            return swish(x) * CONST


    class Plain(nn.Module):
        def forward(self, x):
            return x * 2 if tritonrl_optional_missing is None else x


    def get_inputs():
        return [torch.randn(4, 32)]


    def get_init_inputs():
        return []
    ''')


def test_imports_of_the_users_own_project_are_named(tmp_path, monkeypatch):
    """The problem runs alone in a sandbox: a relative import, or a sibling module of the user's project, is
    reported by name with what to do, not as the sandbox's ImportError; even when the server runs in the
    project's folder, where the sibling would import."""
    (tmp_path / "tritonrl_user_sibling.py").write_text("def swish(x):\n    return x\nCONST = 2\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ExtractError, match=r"Head needs gelu from '\.utils', a relative import.*copy what it needs"):
        extract_problem(PROJECT, "Head")
    with pytest.raises(ExtractError, match=r"Sib needs swish, CONST from 'tritonrl_user_sibling', which the Python "
                                           r"running TritonRL .* cannot import: if it is a file of your project"):
        extract_problem(PROJECT, "Sib")
    assert loads_in_fresh_interpreter(extract_problem(PROJECT, "Plain")) == "(4, 32)"  # a guarded import is fine


def test_inputs_returned_as_a_dict_are_refused_with_the_fix():
    src = textwrap.dedent('''\
        import torch
        import torch.nn as nn

        class Conv(nn.Module):
            def __init__(self, in_ch, out_ch, kernel_size=3):
                super().__init__()
                self.conv = nn.Conv1d(in_ch, out_ch, kernel_size)

            def forward(self, x):
                return self.conv(x)

        def get_inputs():
            return [torch.randn(2, 4, 32)]

        def get_init_inputs():
            return {"in_ch": 4, "out_ch": 8}
        ''')
    with pytest.raises(ExtractError, match=r"get_init_inputs\(\) returns a dict.*Conv\(\*get_init_inputs\(\)\).*"
                                           r"return a list of the constructor arguments"):
        extract_problem(src, "Conv")
    fixed = src.replace('{"in_ch": 4, "out_ch": 8}', "[4, 8]")
    assert loads_in_fresh_interpreter(extract_problem(fixed, "Conv")) == "(2, 8, 30)"


SHARED = textwrap.dedent('''\
    import torch
    import torch.nn as nn


    class ConvBNAct(nn.Sequential):
        def __init__(self, cin, cout, k=3):
            super().__init__(nn.Conv2d(cin, cout, k, padding=k // 2), nn.ReLU())


    class TinyNet(nn.Module):
        def __init__(self, ch=8):
            super().__init__()
            self.body = nn.Sequential(ConvBNAct(3, ch), nn.Flatten())

        def forward(self, x):
            return self.body(x)


    def get_inputs():
        return [torch.randn(2, 3, 8, 8)]


    def get_init_inputs():
        return []
    ''')


def test_shared_init_inputs_that_do_not_fit_a_class_ask_for_its_own():
    assert loads_in_fresh_interpreter(extract_problem(SHARED, "TinyNet")) == "(2, 512)"
    with pytest.raises(NeedsInputs, match=r"get_init_inputs\(\) gives 0 constructor arguments, but "
                                          r"ConvBNAct.__init__ takes at least 2 \(cin, cout\): add "
                                          r"get_init_inputs_ConvBNAct\(\)") as e:
        extract_problem(SHARED, "ConvBNAct")
    assert "def get_init_inputs_ConvBNAct" in e.value.stub and "get_inputs_ConvBNAct" not in e.value.stub
    pasted = SHARED + "\n\n" + e.value.stub.replace("...,  # cin", "3,").replace("...,  # cout", "4,")
    assert loads_in_fresh_interpreter(extract_problem(pasted, "ConvBNAct")) == "(2, 4, 8, 8)"


def test_the_stub_holds_only_the_missing_function():
    """A file with get_inputs but no get_init_inputs: pasting the stub must not replace the user's inputs with
    placeholder shapes."""
    src = SHARED.replace("def get_init_inputs():\n    return []\n", "")
    with pytest.raises(NeedsInputs, match="add get_init_inputs") as e:
        extract_problem(src, "TinyNet")
    assert "def get_init_inputs_TinyNet" in e.value.stub and "get_inputs_TinyNet" not in e.value.stub


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="the message is for machines without a GPU")
def test_inputs_made_on_a_gpu_get_a_sentence_on_a_machine_without_one():
    """A module written on a GPU machine (`.cuda()` in get_inputs), verified on the CPU: the user is told what to
    change, not only torch's assertion."""
    from verifier.problem import ProblemError
    from verifier.runner import VerifyConfig, prepare_reference

    src = textwrap.dedent('''\
        import torch
        import torch.nn as nn

        class Softplus(nn.Module):
            def forward(self, x):
                return torch.log1p(torch.exp(x))

        def get_inputs():
            return [torch.randn(32, 256).cuda()]

        def get_init_inputs():
            return []
        ''')
    with pytest.raises(ProblemError, match=r"put tensors on a GPU .*create get_inputs' tensors on the CPU"):
        prepare_reference(extract_problem(src, "Softplus"), VerifyConfig(device="cpu", trials=1).resolved())


USER_TAIL = '''

def get_inputs():
    return [torch.randn(8, 64)]


def get_init_inputs():
    return []


if __name__ == "__main__":
    print(Net()(torch.randn(2, 64)))
'''

RELU_CANDIDATE = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import triton
    import triton.language as tl

    @triton.jit
    def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)

    class ModelNew(nn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, x):
            x = x.contiguous()
            y = torch.empty_like(x)
            relu_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
            return y
''')


def _user_module(body: str) -> str:
    return "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n" + textwrap.indent(
        textwrap.dedent(body), "    ") + USER_TAIL


@pytest.mark.parametrize("body, says", [
    ('''
     def __init__(self):
         super().__init__()
         self.drop = nn.Dropout(0.1)

     def forward(self, x):
         return self.drop(torch.relu(x))
     ''', "Model.forward is random"),
    ('''
     def forward(self, x):
         return torch.relu(x).mean().item()
     ''', "returns a Python float"),
], ids=["dropout_in_training_mode", "item"])
def test_a_module_no_kernel_can_match_is_refused_with_the_reason(body, says):
    """Dropout in training mode (the module as constructed) and .item() used to fail every candidate with an output
    mismatch (or, for .item(), pass by chance): the user gets the reason and the fix instead."""
    src = extract_problem(_user_module(body), "Net")
    with pytest.raises(ProblemError, match=says):
        verify(src, RELU_CANDIDATE, device="cpu", trials=2, perturb=0, ordered=False)


def test_a_user_module_that_changes_its_input_in_place_verifies_a_kernel_that_does_not():
    """x.relu_(): the candidate used to get the input the reference had already changed (harmless for relu, so the
    module scales first); a @torch.no_grad() forward and a helper function come along with the class."""
    body = '''
        @torch.no_grad()
        def forward(self, x):
            return _shifted_relu_(x)
    '''
    src = _user_module(body).replace("class Net", "def _shifted_relu_(x):\n    return x.sub_(0.25).relu_()\n\n\nclass Net")
    problem = extract_problem(src, "Net")
    assert "def _shifted_relu_" in problem and "__main__" not in problem
    candidate = RELU_CANDIDATE.replace("tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0)",
                                       "tl.maximum(tl.load(x_ptr + offs, mask=m) - 0.25, 0.0)")
    v = verify(problem, candidate, device="cpu")
    assert v.ok, v.summary()


def test_type_checking_imports_and_the_future_import_come_along():
    """`from __future__ import annotations` with a type imported under `if TYPE_CHECKING:` (from the user's own
    package): the future import used to be dropped (the annotation then ran: NameError) and the import was refused as
    one the sandbox cannot run, although it never runs."""
    src = textwrap.dedent('''\
        """A module."""
        from __future__ import annotations

        from typing import TYPE_CHECKING

        import torch
        import torch.nn as nn

        if TYPE_CHECKING:
            from mypkg.config import ModelConfig


        class Scale(nn.Module):
            def __init__(self, cfg: ModelConfig | None = None) -> None:
                super().__init__()
                self.s = 2.0

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return x * self.s


        def get_inputs():
            return [torch.randn(2, 16, 64)]


        def get_init_inputs():
            return []
    ''')
    problem = extract_problem(src, "Scale")
    assert problem.startswith("from __future__ import annotations")
    assert loads_in_fresh_interpreter(problem) == "(2, 16, 64)"
    with pytest.raises(ExtractError, match="mypkg"):  # one that runs is still refused
        extract_problem(src.replace("if TYPE_CHECKING:\n    from mypkg", "if not TYPE_CHECKING:\n    from mypkg"),
                        "Scale")
