"""One activation per module, in every way people spell it: `torch.relu`, `F.relu`, `torch.nn.functional.relu`,
tensor methods, keyword arguments, an `nn` module, a parameter given at construction (a slope, an alpha, clamp
bounds); inputs of 1 to 4 dimensions with size constants from tiny to very large.

Why a table of its own: the main streams show activations mostly inside chains (1-3 ops, often scaled), and a
model trained on them alone did not read single activations: on KernelBench's ten activation problems it wrote
another op and added a scale no problem asked for (0/40, 2026-12-05). `generate(..., table="single-ops")` draws
from here only, with its own random stream, so the committed corpora stay reproducible.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .basic import SCALAR_CANDIDATE
from .common import Sample, problem


@dataclass(frozen=True)
class Act:
    name: str
    forms: tuple[str, ...]        # PyTorch source with {x} and, for a parameterised op, {p} (a literal or self.<name>)
    triton: str                   # Triton expression of the fp32 value `v`, with {p} for the parameter
    module: str | None = None     # nn module constructor, with {p}
    param: tuple[str, tuple[float, ...]] | None = None  # (name, values) of the op's parameter


ACTS = [
    Act("relu", ("torch.relu({x})", "F.relu({x})", "torch.nn.functional.relu({x})", "{x}.relu()",
                 "torch.clamp({x}, min=0.0)", "{x}.clamp(min=0)"), "tl.maximum(v, 0.0)", "nn.ReLU()"),
    Act("leaky_relu", ("F.leaky_relu({x}, {p})", "F.leaky_relu({x}, negative_slope={p})",
                       "torch.nn.functional.leaky_relu({x}, negative_slope={p})"),
        "tl.where(v >= 0, v, v * {p})", "nn.LeakyReLU(negative_slope={p})", ("negative_slope", (0.01, 0.05, 0.1, 0.2))),
    Act("sigmoid", ("torch.sigmoid({x})", "{x}.sigmoid()", "F.sigmoid({x})", "torch.nn.functional.sigmoid({x})"),
        "tl.sigmoid(v)", "nn.Sigmoid()"),
    Act("tanh", ("torch.tanh({x})", "{x}.tanh()", "F.tanh({x})"), "2.0 * tl.sigmoid(2.0 * v) - 1.0", "nn.Tanh()"),
    Act("swish", ("{x} * torch.sigmoid({x})", "F.silu({x})", "torch.nn.functional.silu({x})"),
        "v * tl.sigmoid(v)", "nn.SiLU()"),
    Act("gelu", ("F.gelu({x})", "torch.nn.functional.gelu({x})"),
        "0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))", "nn.GELU()"),
    Act("softplus", ("F.softplus({x})", "torch.nn.functional.softplus({x})"),
        "tl.where(v > 20.0, v, tl.log(1.0 + tl.exp(v)))", "nn.Softplus()"),
    Act("hardtanh", ("F.hardtanh({x}, min_val=-{p}, max_val={p})", "torch.clamp({x}, -{p}, {p})",
                     "{x}.clamp(-{p}, {p})", "torch.nn.functional.hardtanh({x}, min_val=-{p}, max_val={p})"),
        "tl.minimum(tl.maximum(v, -{p}), {p})", "nn.Hardtanh(min_val=-{p}, max_val={p})", ("bound", (1.0, 2.0, 0.5))),
    Act("hardsigmoid", ("F.hardsigmoid({x})", "torch.nn.functional.hardsigmoid({x})"),
        "tl.minimum(tl.maximum(v / 6.0 + 0.5, 0.0), 1.0)", "nn.Hardsigmoid()"),
    Act("hardswish", ("F.hardswish({x})", "torch.nn.functional.hardswish({x})"),
        "v * tl.minimum(tl.maximum(v + 3.0, 0.0), 6.0) / 6.0", "nn.Hardswish()"),
    Act("softsign", ("F.softsign({x})", "torch.nn.functional.softsign({x})", "{x} / (1 + torch.abs({x}))"),
        "v / (1.0 + tl.abs(v))", "nn.Softsign()"),
    Act("elu", ("F.elu({x}, alpha={p})", "torch.nn.functional.elu({x}, alpha={p})"),
        "tl.where(v > 0, v, {p} * (tl.exp(v) - 1.0))", "nn.ELU(alpha={p})", ("alpha", (1.0, 0.5, 2.0))),
    Act("exp", ("torch.exp({x})", "{x}.exp()"), "tl.exp(v)"),
    Act("abs", ("torch.abs({x})", "{x}.abs()"), "tl.abs(v)"),
]

# (names, sizes per name): 1-4 dimensions; size constants from tiny to the very large ones benchmarks use
SHAPES = [
    (("dim",), ([1024, 4096, 65536, 1048576],)),
    (("batch_size", "dim"), ([1, 16, 128, 1024, 4096], [64, 1000, 16384, 65536, 262144])),
    (("batch", "features"), ([8, 64, 256, 2048], [128, 777, 4096, 32768])),
    (("B", "N"), ([4, 32, 512], [256, 3001, 131072])),
    (("batch_size", "seq_len", "hidden"), ([2, 8, 32], [16, 128, 512], [64, 768, 4096])),
    (("N", "C", "H", "W"), ([1, 4, 16], [3, 16, 64], [8, 32, 224], [8, 32, 224])),
]

def activation(rng: random.Random, idx: int) -> Sample:
    """One activation over an input of 1-4 dimensions, in one of its spellings, as one flat kernel."""
    act = rng.choice(ACTS)
    names, choices = rng.choice(SHAPES)
    sizes = {n: rng.choice(c) for n, c in zip(names, choices)}
    while len(sizes) > 1 and math.prod(sizes.values()) > (1 << 28):  # keep the problem's own inputs allocatable (1 GiB fp32)
        big = max(sizes, key=sizes.get)
        sizes[big] //= 4
    value = rng.choice(act.param[1]) if act.param else None
    # a parameter given at construction (KernelBench's LeakyReLU keeps its slope in __init__), or a literal
    as_init = act.param is not None and rng.random() < 0.4
    p_src = f"self.{act.param[0]}" if as_init else (repr(value) if act.param else "")
    init_params = init_body = init_inputs = ""
    if as_init:
        init_params = f"{act.param[0]}: float = {value!r}"
        init_body = f"self.{act.param[0]} = {act.param[0]}"
        init_inputs = rng.choice(["", repr(value)])  # the default, or the value passed explicitly
    if act.module and not as_init and rng.random() < 0.3:
        init_body = f"self.act = {act.module.format(p=repr(value))}"
        body = "return self.act(x)"
    else:
        body = f"return {rng.choice(act.forms).format(x='x', p=p_src)}"
    dtype = rng.choice(["", "", "", ".half()"])
    shape = ", ".join(names)
    desc = act.name.replace("_", " ") + (f" ({act.param[0]} {value})" if act.param else "")
    src = problem(rng, desc=desc, forward_args=["x"], body=body, sizes=sizes,
                  inputs=[f"torch.randn({shape}){dtype}"], init_params=init_params, init_body=init_body,
                  init_inputs=init_inputs)
    # the candidate takes the same construction arguments and hands the parameter to the kernel at run time
    step = act.triton.format(p="p" if as_init else repr(value))
    block = rng.choice([256, 512, 1024, 2048, 4096])
    # the flat kernel of x-op-scalar problems: a run-time scalar argument when the module holds the parameter
    cand = SCALAR_CANDIDATE.format(
        kname="elementwise_kernel", s_arg="p, " if as_init else "", s_call=f"self.{act.param[0]}, " if as_init else "",
        expr=step, block=block, init_params=f", {init_params}" if as_init else "",
        init_body=f"        {init_body}\n" if as_init else "")
    what = f"{act.name}" + (f" with {act.param[0]} = {value}" if act.param else "")
    plan = rng.choice([
        f"The module applies a single {what} to every element; nothing else. One flat kernel over the "
        f"contiguous input: BLOCK={block} elements per program, grid cdiv(n, BLOCK), masked tail, computed in "
        "fp32 and stored in the input dtype.",
        f"Elementwise {what} only, whatever the input's rank: flatten, launch cdiv(n, {block}) programs, each "
        f"loads its block, computes {act.name} in fp32 registers and stores it once.",
        f"Only one op here ({what}), so the kernel does exactly that: read x once, write y once, {block} "
        "elements per program, the last block masked.",
    ]) + (f" The {act.param[0]} is set at construction, so it is passed to the kernel as a run-time scalar."
          if as_init else "")
    return Sample(f"act-{idx:05d}", "elementwise", src, plan, cand)

