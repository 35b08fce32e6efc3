"""A reproducible generator of (problem, plan, Triton candidate) samples, in KernelBook's spirit.

Teacher: a compact generator of clean Triton from a small op graph (not TorchInductor output):
every candidate is readable, uses no library call for its core op, and its plan is true to its
code by construction (the same op graph writes both). Problems vary in coding style the way
people write modules (torch.* vs F.* vs tensor methods vs nn submodules, names, docstrings,
shapes and dtypes). Families so far: elementwise activations and their compositions, binary ops
with broadcasting and scalars, reductions over the last dim, softmax and log-softmax.

    python -m training.data.generate --n 200 --seed 0 --out data/corpus.jsonl [--verify]
"""
from __future__ import annotations

import argparse
import json
import random
import textwrap
from dataclasses import asdict, dataclass

from .. import prompts


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

REDUCTIONS = {"sum": ("torch.sum({x}, dim=-1)", "tl.sum(v, axis=0)", "0.0"),
              "mean": ("{x}.mean(dim=-1)", "tl.sum(v, axis=0) / n_cols", "0.0"),
              "max": ("torch.amax({x}, dim=-1)", "tl.max(v, axis=0)", "-float('inf')"),
              "min": ("torch.amin({x}, dim=-1)", "tl.min(v, axis=0)", "float('inf')")}

SIZE_NAMES = [("batch_size", "dim"), ("B", "N"), ("n_rows", "n_cols"), ("batch", "features"), ("M", "K")]
DOCS = ["", '"""Computes {desc}."""', '"""A module that computes {desc}."""',
        '"""Computes {desc}.\n\n    Used as a building block."""']


@dataclass
class Sample:
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


def _problem(rng: random.Random, desc: str, init: str, body: str, fwd_args: str, inputs: str,
             sizes: dict[str, int], uses_f: bool) -> str:
    doc = rng.choice(DOCS).format(desc=desc)
    imports = "import torch\nimport torch.nn as nn\n" + ("import torch.nn.functional as F\n" if uses_f else "")
    consts = "\n".join(f"{k} = {v}" for k, v in sizes.items())
    init_body = textwrap.indent(init, " " * 8) if init else ""
    return (f"{imports}\n\nclass Model(nn.Module):\n" + (f"    {doc}\n\n" if doc else "") +
            f"    def __init__(self):\n        super().__init__()\n{init_body}\n"
            f"    def forward(self, {fwd_args}):\n{textwrap.indent(body, ' ' * 8)}\n\n\n{consts}\n\n\n"
            f"def get_inputs():\n    return [{inputs}]\n\n\ndef get_init_inputs():\n    return []\n")


ELEMENTWISE_CANDIDATE = '''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def {kname}(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
{steps}
    tl.store(y_ptr + offs, v.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        {kname}[(triton.cdiv(n, {block}),)](x, y, n, BLOCK={block})
        return y
'''


def elementwise(rng: random.Random, idx: int) -> Sample:
    ops = rng.sample(UNARY, rng.choice([1, 1, 2, 3]))
    scale = rng.choice([None, None, 2.0, 0.5, 3.0])
    (rn, cn) = rng.choice(SIZE_NAMES)
    sizes = {rn: rng.choice([16, 64, 128, 256, 1024]), cn: rng.choice([256, 1000, 4096, 16384, 3001])}
    style = rng.choice(["expr", "modules"]) if all(o.module for o in ops) else "expr"
    init, expr = "", "x"
    if style == "modules":
        init = "\n".join(f"self.act{i} = {o.module}" for i, o in enumerate(ops))
        for i in range(len(ops)):
            expr = f"self.act{i}({expr})"
    else:
        for o in ops:
            expr = rng.choice(o.torch_forms).format(x=expr if expr == "x" else f"({expr})")
    if scale is not None:
        expr = f"({expr}) * {scale}"
    body = f"return {expr}"
    dtype = rng.choice(["", "", "", ".half()"])
    inputs = f"torch.randn({rn}, {cn}){dtype}"
    desc = " then ".join(o.name for o in ops) + (f", scaled by {scale}" if scale else "")
    uses_f = "F." in body
    problem = _problem(rng, desc, init, body, "x", inputs, sizes, uses_f)
    steps = "\n".join(f"    v = {o.triton}" for o in ops) + (f"\n    v = v * {scale}" if scale else "")
    block = rng.choice([512, 1024, 2048])
    kname = "_".join(o.name for o in ops) + "_kernel"
    cand = ELEMENTWISE_CANDIDATE.format(kname=kname, steps=steps, block=block)
    plan = (f"One elementwise kernel over the flattened tensor fuses {desc}; computed in fp32, stored in the "
            f"input dtype; BLOCK={block} elements per program, masked tail, grid cdiv(n, {block}).")
    return Sample(f"ew-{idx:05d}", "elementwise", problem, plan, cand)


ROW_CANDIDATE = '''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def {kname}(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    v = tl.load(x_ptr + row * stride + offs, mask=mask, other={other}).to(tl.float32)
{body}


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_cols = x.shape[-1]
        rows = x.numel() // n_cols
        y = {alloc}
        {kname}[(rows,)](x, y, n_cols, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return y
'''


def row_op(rng: random.Random, idx: int) -> Sample:
    kind = rng.choice(["sum", "mean", "max", "min", "softmax", "log_softmax"])
    (rn, cn) = rng.choice(SIZE_NAMES)
    sizes = {rn: rng.choice([8, 32, 64, 128]), cn: rng.choice([64, 100, 256, 777, 1024])}
    inputs = f"torch.randn({rn}, {cn})"
    if kind in REDUCTIONS:
        form, red, other = REDUCTIONS[kind]
        body_src = f"return {form.format(x='x')}"
        kbody = f"    out = {red}\n    tl.store(y_ptr + row, out.to(y_ptr.dtype.element_ty))"
        alloc = "torch.empty(x.shape[:-1], device=x.device, dtype=x.dtype)"
        plan = (f"One program per row: load the whole row (BLOCK = next power of two of the row length, masked "
                f"with {other}), reduce with {kind} in fp32, store one value per row.")
        desc = f"the {kind} over the last dimension"
    else:
        f = rng.choice(["torch.softmax(x, dim=-1)", "F.softmax(x, dim=-1)", "x.softmax(dim=1)"]) \
            if kind == "softmax" else rng.choice(["torch.log_softmax(x, dim=-1)", "F.log_softmax(x, dim=1)"])
        body_src = f"return {f}"
        other = "-float('inf')"
        last = "e / s" if kind == "softmax" else "z - tl.log(s)"
        kbody = ("    z = v - tl.max(v, axis=0)\n    e = tl.exp(z)\n    s = tl.sum(e, axis=0)\n"
                 f"    tl.store(y_ptr + row * stride + offs, ({last}).to(y_ptr.dtype.element_ty), mask=mask)")
        alloc = "torch.empty_like(x)"
        plan = (f"One program per row, the whole row in registers (BLOCK = next power of two, masked with -inf): "
                f"subtract the row max, exponentiate, sum, then {'divide' if kind == 'softmax' else 'subtract the log of the sum'}"
                " in the same pass.")
        desc = f"a {kind} over each row"
    problem = _problem(rng, desc, "", body_src, "x", inputs, sizes, "F." in body_src)
    kname = f"row_{kind}_kernel"
    cand = ROW_CANDIDATE.format(kname=kname, other=other, body=kbody, alloc=alloc)
    return Sample(f"row-{idx:05d}", "row", problem, plan, cand)


BINARY_CANDIDATE = '''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def {kname}(x_ptr, b_ptr, y_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + {bidx}, mask=mask, other=1.0)
    tl.store(y_ptr + offs, v {op} b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, b):
        x = x.contiguous()
        b = b.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        {kname}[(triton.cdiv(n, 1024),)](x, b, y, n, x.shape[1], BLOCK=1024)
        return y
'''


def binary(rng: random.Random, idx: int) -> Sample:
    op = rng.choice(["+", "*", "-"])
    bcast = rng.choice(["row", "col"])
    (rn, cn) = rng.choice(SIZE_NAMES)
    sizes = {rn: rng.choice([16, 64, 128]), cn: rng.choice([64, 300, 1024])}
    b_shape = f"{cn}" if bcast == "row" else f"{rn}, 1"
    inputs = f"torch.randn({rn}, {cn}), torch.randn({b_shape})"
    form = {"+": rng.choice(["x + b", "torch.add(x, b)"]), "*": rng.choice(["x * b", "torch.mul(x, b)"]),
            "-": rng.choice(["x - b", "torch.sub(x, b)"])}[op]
    problem = _problem(rng, f"x {op} b with b broadcast along the {'rows' if bcast == 'row' else 'columns'}", "",
                       f"return {form}", "x, b", inputs, sizes, False)
    bidx = "offs % n_cols" if bcast == "row" else "offs // n_cols"
    name = {"+": "add", "*": "mul", "-": "sub"}[op]
    cand = BINARY_CANDIDATE.format(kname=f"bcast_{name}_kernel", bidx=bidx, op=op)
    plan = (f"One elementwise kernel over x flattened; the broadcast operand is indexed with {bidx} "
            f"(x is contiguous, {'b has one value per column' if bcast == 'row' else 'b has one value per row'}); "
            "BLOCK=1024, masked tail.")
    return Sample(f"bin-{idx:05d}", "binary", problem, plan, cand)


FAMILIES = [(elementwise, 5), (row_op, 3), (binary, 2)]


def generate(n: int, seed: int = 0) -> list[Sample]:
    """`n` samples, the same for the same seed."""
    rng = random.Random(seed)
    makers = [f for f, w in FAMILIES for _ in range(w)]
    return [rng.choice(makers)(rng, i) for i in range(n)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--verify", action="store_true", help="keep only samples that pass the verifier")
    args = ap.parse_args()
    samples = generate(args.n, args.seed)
    kept = samples
    if args.verify:
        from verifier import VerifyConfig, verify

        cfg = VerifyConfig(pool=True, trials=1)
        kept = [s for s in samples if verify(s.problem, s.candidate, cfg).ok]
    with open(args.out, "w") as f:
        for s in kept:
            f.write(json.dumps({**asdict(s), "response": s.response}) + "\n")
    print(f"{len(kept)}/{len(samples)} samples written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
