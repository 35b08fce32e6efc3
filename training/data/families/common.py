"""What every family shares: the sample record, the KernelBench-format problem writer, activations."""
from __future__ import annotations

import random
import re
import textwrap
import zlib
from dataclasses import dataclass

from ... import prompts


@dataclass
class Sample:
    """One training sample: a KernelBench-format problem, the plan and the Triton candidate."""

    id: str
    family: str
    problem: str
    plan: str
    candidate: str

    @property
    def response(self) -> str:
        return f"<think>\n{self.plan}\n</think>\n```python\n{self.candidate}```"

    @property
    def messages(self) -> list[dict]:
        return prompts.build_messages(self.problem) + [{"role": "assistant", "content": self.response}]


@dataclass(frozen=True)
class Unary:
    name: str
    torch_forms: tuple[str, ...]   # ways a user writes it, with {x}
    triton: str                    # Triton expression of `v`
    module: str | None = None      # nn module constructor, if any


UNARY = [
    Unary("relu", ("torch.relu({x})", "F.relu({x})", "{x}.relu()", "torch.clamp({x}, min=0.0)"),
          "tl.maximum(v, 0.0)", "nn.ReLU()"),
    Unary("leaky_relu", ("F.leaky_relu({x}, 0.1)",), "tl.where(v >= 0, v, v * 0.1)", "nn.LeakyReLU(0.1)"),
    Unary("sigmoid", ("torch.sigmoid({x})", "{x}.sigmoid()", "F.sigmoid({x})"), "tl.sigmoid(v)", "nn.Sigmoid()"),
    Unary("tanh", ("torch.tanh({x})", "{x}.tanh()"), "2.0 * tl.sigmoid(2.0 * v) - 1.0", "nn.Tanh()"),
    Unary("silu", ("F.silu({x})", "{x} * torch.sigmoid({x})"), "v * tl.sigmoid(v)", "nn.SiLU()"),
    Unary("gelu", ("F.gelu({x})",), "0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))", "nn.GELU()"),
    Unary("softplus", ("F.softplus({x})",), "tl.where(v > 20.0, v, tl.log(1.0 + tl.exp(v)))", "nn.Softplus()"),
    Unary("hardtanh", ("F.hardtanh({x})", "torch.clamp({x}, -1.0, 1.0)"), "tl.minimum(tl.maximum(v, -1.0), 1.0)",
          "nn.Hardtanh()"),
    Unary("hardsigmoid", ("F.hardsigmoid({x})",), "tl.minimum(tl.maximum(v / 6.0 + 0.5, 0.0), 1.0)",
          "nn.Hardsigmoid()"),
    Unary("softsign", ("F.softsign({x})", "{x} / (1 + {x}.abs())"), "v / (1.0 + tl.abs(v))", "nn.Softsign()"),
    Unary("square", ("{x} * {x}", "torch.square({x})", "{x} ** 2"), "v * v"),
    Unary("abs", ("torch.abs({x})", "{x}.abs()"), "tl.abs(v)"),
]
# Activations a layer is commonly followed by (bounded growth, so fused chains stay well conditioned).
ACTIVATIONS = [u for u in UNARY if u.name not in ("square", "abs")]

SIZE_NAMES = [("batch_size", "dim"), ("B", "N"), ("n_rows", "n_cols"), ("batch", "features"), ("M", "K")]
DOCS = ["", '"""Computes {desc}."""', '"""A module that computes {desc}."""',
        '"""Computes {desc}.\n\n    Used as a building block."""', '"""{Desc}."""']

HEADER = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n"


def activation_expr(rng: random.Random, ops: list[Unary], x: str) -> str:
    """PyTorch source applying `ops` to the expression `x`, in one of the ways people write it."""
    expr = x
    for o in ops:
        expr = rng.choice(o.torch_forms).format(x=expr if expr.isidentifier() else f"({expr})")
    return expr


def triton_steps(ops: list[Unary], indent: int = 4) -> str:
    """Triton lines applying `ops` in place to the fp32 value `v`."""
    return "\n".join(f"{' ' * indent}v = {o.triton}" for o in ops)


def problem(rng: random.Random, *, desc: str, forward_args: list[str], body: str, sizes: dict[str, int],
            inputs: list[str], init_params: str = "", init_body: str = "", init_inputs: str = "",
            methods: str = "") -> str:
    """A KernelBench-format problem: class Model, module-level size constants, get_inputs, get_init_inputs.

    The coding style (docstring, super() form, type hints, how inputs are built) is drawn from `rng`.
    `methods` is extra method source of Model (unindented), placed after forward."""
    doc = rng.choice(DOCS).format(desc=desc, Desc=desc[:1].upper() + desc[1:])
    uses_f = "F." in body or "F." in init_body or "F." in methods
    imports = "import torch\nimport torch.nn as nn\n" + ("import torch.nn.functional as F\n" if uses_f else "")
    consts = "\n".join(f"{k} = {v}" for k, v in sizes.items())
    sup = rng.choice(["super().__init__()", "super().__init__()", "super(Model, self).__init__()"])
    hints = rng.random() < 0.35
    args = ", ".join(f"{a}: torch.Tensor" if hints else a for a in forward_args)
    ret = " -> torch.Tensor" if hints else ""
    params = f", {init_params}" if init_params else ""
    init = textwrap.indent(init_body, " " * 8) + "\n" if init_body else ""
    # KernelBench draws most inputs with torch.rand, the makers write torch.randn: 40% of problems get rand, from a
    # generator seeded by the problem itself (no draw from `rng`: every other choice of the stream stays as it
    # was). Without it only three second-stream kinds used rand, and a model took `torch.rand` to mean a
    # Frobenius norm (KernelBench's ReLU and Swish, 2026-12-04).
    if random.Random(zlib.crc32(f"{desc}|{sizes}|{body}".encode())).random() < 0.4:
        inputs = [re.sub(r"^torch\.randn\(", "torch.rand(", e) for e in inputs]
    if rng.random() < 0.5:
        make = "".join(f"    {n} = {e}\n" for n, e in zip(forward_args, inputs))
        get_inputs = f"{make}    return [{', '.join(forward_args)}]"
    else:
        get_inputs = f"    return [{', '.join(inputs)}]"
    return (f"{imports}\n\nclass Model(nn.Module):\n" + (f"    {doc}\n\n" if doc else "") +
            f"    def __init__(self{params}):\n        {sup}\n{init}\n"
            f"    def forward(self, {args}){ret}:\n{textwrap.indent(body, ' ' * 8)}\n" +
            (f"\n{textwrap.indent(methods.rstrip(), ' ' * 4)}\n" if methods else "") + f"\n\n{consts}\n\n\n"
            f"def get_inputs():\n{get_inputs}\n\n\ndef get_init_inputs():\n    return [{init_inputs}]\n")


def sizes_pick(rng: random.Random, names: tuple[str, ...], choices: list[list[int]]) -> dict[str, int]:
    """Size constants named `names`, each drawn from its own list of choices."""
    return {n: rng.choice(c) for n, c in zip(names, choices)}
