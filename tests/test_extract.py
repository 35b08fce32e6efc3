"""From a user's file and a class to a self-contained problem (training.extract)."""
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
from training.extract import ExtractError, NeedsInputs, extract_problem, modules_in
from verifier import verify
from verifier.problem import parse_problem

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
