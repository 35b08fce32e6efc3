"""Elementwise activation chains, broadcast binary ops, binary ops with a scalar, row reductions and
(log-)softmax over rows."""
from __future__ import annotations

import random

from .common import HEADER, SIZE_NAMES, UNARY, Sample, activation_expr, problem, triton_steps

REDUCTIONS = {"sum": ("torch.sum({x}, dim=-1)", "tl.sum(v, axis=0)", "0.0"),
              "mean": ("{x}.mean(dim=-1)", "tl.sum(v, axis=0) / n_cols", "0.0"),
              "max": ("torch.amax({x}, dim=-1)", "tl.max(v, axis=0)", "-float('inf')"),
              "min": ("torch.amin({x}, dim=-1)", "tl.min(v, axis=0)", "float('inf')")}

ELEMENTWISE_CANDIDATE = HEADER + '''

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
        BLOCK = {block}
        {kname}[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        return y
'''


def elementwise(rng: random.Random, idx: int) -> Sample:
    """A chain of 1-3 activations with an optional scale, fused into one flat kernel."""
    ops = rng.sample(UNARY, rng.choice([1, 1, 2, 3]))
    scale = rng.choice([None, None, 2.0, 0.5, 3.0])
    (rn, cn) = rng.choice(SIZE_NAMES)
    sizes = {rn: rng.choice([16, 64, 128, 256, 1024]), cn: rng.choice([256, 1000, 4096, 16384, 3001])}
    init = ""
    if all(o.module for o in ops) and rng.random() < 0.5:
        init = "\n".join(f"self.act{i} = {o.module}" for i, o in enumerate(ops))
        expr = "x"
        for i in range(len(ops)):
            expr = f"self.act{i}({expr})"
    else:
        expr = activation_expr(rng, ops, "x")
    if scale is not None:
        expr = f"({expr}) * {scale}"
    dtype = rng.choice(["", "", "", ".half()"])
    desc = " then ".join(o.name for o in ops) + (f", scaled by {scale}" if scale else "")
    src = problem(rng, desc=desc, forward_args=["x"], body=f"return {expr}", sizes=sizes,
                  inputs=[f"torch.randn({rn}, {cn}){dtype}"], init_body=init)
    steps = triton_steps(ops) + (f"\n    v = v * {scale}" if scale else "")
    block = rng.choice([512, 1024, 2048])
    kname = "elementwise_kernel"
    cand = ELEMENTWISE_CANDIDATE.format(kname=kname, steps=steps, block=block)
    plan = rng.choice([
        f"One elementwise kernel over the flattened tensor fuses {desc}; computed in fp32, stored in the "
        f"input dtype; BLOCK={block} elements per program, masked tail, grid cdiv(n, {block}).",
        f"Flatten x and launch cdiv(n, {block}) programs of {block} elements; each loads its block (masked at "
        f"the end), applies {desc} in fp32 registers and stores once in the input dtype.",
        f"Single fused pass: {desc} in one kernel, so x is read once and y written once. {block} elements per "
        "program, the last block masked.",
    ])
    return Sample(f"ew-{idx:05d}", "elementwise", src, plan, cand)


ROW_CANDIDATE = HEADER + '''

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
    """Sum/mean/max/min over the last dim, or softmax/log-softmax over rows: one program per row."""
    kind = rng.choice(["sum", "mean", "max", "min", "softmax", "log_softmax"])
    (rn, cn) = rng.choice(SIZE_NAMES)
    sizes = {rn: rng.choice([8, 32, 64, 128]), cn: rng.choice([64, 100, 256, 777, 1024])}
    if kind in REDUCTIONS:
        form, red, other = REDUCTIONS[kind]
        body = f"return {form.format(x='x')}"
        kbody = f"    out = {red}\n    tl.store(y_ptr + row, out.to(y_ptr.dtype.element_ty))"
        alloc = "torch.empty(x.shape[:-1], device=x.device, dtype=x.dtype)"
        plan = rng.choice([
            f"One program per row: load the whole row (BLOCK = next power of two of the row length, masked "
            f"with {other}), reduce with {kind} in fp32, store one value per row.",
            f"Grid = number of rows. Each program reads its row in one masked block (padding {other}, neutral "
            f"for {kind}), reduces it in registers and writes a single output.",
        ])
        desc = f"the {kind} over the last dimension"
    else:
        f = rng.choice(["torch.softmax(x, dim=-1)", "F.softmax(x, dim=-1)", "x.softmax(dim=1)"]) \
            if kind == "softmax" else rng.choice(["torch.log_softmax(x, dim=-1)", "F.log_softmax(x, dim=1)"])
        body = f"return {f}"
        other = "-float('inf')"
        last = "e / s" if kind == "softmax" else "z - tl.log(s)"
        kbody = ("    z = v - tl.max(v, axis=0)\n    e = tl.exp(z)\n    s = tl.sum(e, axis=0)\n"
                 f"    tl.store(y_ptr + row * stride + offs, ({last}).to(y_ptr.dtype.element_ty), mask=mask)")
        alloc = "torch.empty_like(x)"
        tail = "divide" if kind == "softmax" else "subtract the log of the sum"
        plan = rng.choice([
            "One program per row, the whole row in registers (BLOCK = next power of two, masked with -inf): "
            f"subtract the row max, exponentiate, sum, then {tail} in the same pass.",
            f"Row-wise {kind}: grid = rows, one masked block per row (-inf padding so it drops out of the max and "
            f"the sum); max-subtracted exp for stability, then {tail}; a single read and write of x.",
        ])
        desc = f"a {kind} over each row"
    src = problem(rng, desc=desc, forward_args=["x"], body=body, sizes=sizes, inputs=[f"torch.randn({rn}, {cn})"])
    cand = ROW_CANDIDATE.format(kname="row_kernel", other=other, body=kbody, alloc=alloc)
    return Sample(f"row-{idx:05d}", "row", src, plan, cand)


BINARY_CANDIDATE = HEADER + '''

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
        BLOCK = 1024
        {kname}[(triton.cdiv(n, BLOCK),)](x, b, y, n, x.shape[1], BLOCK=BLOCK)
        return y
'''


def binary(rng: random.Random, idx: int) -> Sample:
    """x (op) b with b broadcast along rows or columns."""
    op = rng.choice(["+", "*", "-"])
    bcast = rng.choice(["row", "col"])
    (rn, cn) = rng.choice(SIZE_NAMES)
    sizes = {rn: rng.choice([16, 64, 128]), cn: rng.choice([64, 300, 1024])}
    b_shape = f"{cn}" if bcast == "row" else f"{rn}, 1"
    form = {"+": rng.choice(["x + b", "torch.add(x, b)"]), "*": rng.choice(["x * b", "torch.mul(x, b)"]),
            "-": rng.choice(["x - b", "torch.sub(x, b)"])}[op]
    src = problem(rng, desc=f"x {op} b with b broadcast along the {'rows' if bcast == 'row' else 'columns'}",
                  forward_args=["x", "b"], body=f"return {form}", sizes=sizes,
                  inputs=[f"torch.randn({rn}, {cn})", f"torch.randn({b_shape})"])
    bidx = "offs % n_cols" if bcast == "row" else "offs // n_cols"
    name = {"+": "add", "*": "mul", "-": "sub"}[op]
    cand = BINARY_CANDIDATE.format(kname="bcast_kernel", bidx=bidx, op=op)
    who = "b has one value per column" if bcast == "row" else "b has one value per row"
    plan = rng.choice([
        f"One elementwise kernel over x flattened; the broadcast operand is indexed with {bidx} "
        f"(x is contiguous, {who}); BLOCK=1024, masked tail.",
        f"Flat grid of cdiv(n, 1024) programs over x; {who}, so its index is {bidx} and the broadcast never "
        "materialises; loads and stores masked at the tail.",
    ])
    return Sample(f"bin-{idx:05d}", "binary", src, plan, cand)


SCALAR_CANDIDATE = HEADER + '''

@triton.jit
def {kname}(x_ptr, y_ptr, n, {s_arg}BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = {expr}
    tl.store(y_ptr + offs, v.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self{init_params}):
        super().__init__()
{init_body}
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = {block}
        {kname}[(triton.cdiv(n, BLOCK),)](x, y, n, {s_call}BLOCK=BLOCK)
        return y
'''

# op: (ways to write x op s with {s}, Triton expression of v and s, scalar values, name of the scalar)
SCALAR_OPS = {
    "add": (("x + {s}", "{s} + x", "torch.add(x, {s})", "x.add({s})"), "v + s", [0.5, 1.5, 2.0, 3.0], "shift"),
    "sub": (("x - {s}", "torch.sub(x, {s})", "x.sub({s})"), "v - s", [0.25, 1.0, 2.5], "offset"),
    "rsub": (("{s} - x", "torch.rsub(x, {s})"), "s - v", [1.0, 2.0, 0.5], "value"),
    "mul": (("x * {s}", "{s} * x", "torch.mul(x, {s})", "x.mul({s})"), "v * s", [0.5, 2.0, -1.5, 0.125], "scale"),
    "div": (("x / {s}", "torch.div(x, {s})", "x.div({s})"), "v / s", [2.0, 3.0, 0.5, 7.0], "divisor"),
    "max": (("torch.maximum(x, torch.tensor({s}))", "torch.clamp(x, min={s})", "x.clamp_min({s})"),
            "tl.maximum(v, s)", [0.1, 0.0, -0.5, 0.25], "floor"),
    "min": (("torch.minimum(x, torch.tensor({s}))", "torch.clamp(x, max={s})", "x.clamp_max({s})"),
            "tl.minimum(v, s)", [0.5, 0.0, 1.0, -0.25], "cap"),
}


def binary_scalar(rng: random.Random, idx: int, op: str | None = None) -> Sample:
    """x (op) scalar or scalar (op) x: add, sub, rsub, mul, div, maximum, minimum with a Python number,
    written inline or held by the module (an `__init__` argument); one flat kernel. `op` forces the op."""
    op = rng.choice(list(SCALAR_OPS)) if op is None else op
    forms, texpr, values, sname = SCALAR_OPS[op]
    value = rng.choice(values)
    held = rng.random() < 0.4
    s_src = f"self.{sname}" if held else repr(value)
    form = rng.choice(forms).format(s=s_src)
    if "torch.tensor(" in form and held:
        form = form.replace(f"torch.tensor({s_src})", f"torch.tensor({s_src}, dtype=x.dtype, device=x.device)")
    (rn, cn) = rng.choice(SIZE_NAMES)
    three_d = rng.random() < 0.3
    sizes = {rn: rng.choice([16, 64, 128, 256])} | ({"seq": rng.choice([8, 16, 32])} if three_d else {}) | \
        {cn: rng.choice([100, 256, 1000, 4096])}
    shape = ", ".join(sizes)
    dtype = rng.choice(["", "", "", ".half()"])
    init_params = f"{sname}: float = {value}" if held else ""
    init_body = f"self.{sname} = {sname}" if held else ""
    desc = f"x {op} a scalar" if op not in ("rsub", "max", "min") else \
        {"rsub": "a scalar minus x", "max": "the elementwise maximum of x and a scalar",
         "min": "the elementwise minimum of x and a scalar"}[op]
    src = problem(rng, desc=desc, forward_args=["x"], body=f"return {form}", sizes=sizes,
                  inputs=[f"torch.randn({shape}){dtype}"], init_params=init_params, init_body=init_body,
                  init_inputs=repr(value) if held else "")
    block = rng.choice([512, 1024, 2048])
    expr = texpr
    if not held:  # the constant is baked into the kernel
        expr = {"add": f"v + {value!r}", "sub": f"v - {value!r}", "rsub": f"{value!r} - v", "mul": f"v * {value!r}",
                "div": f"v / {value!r}", "max": f"tl.maximum(v, {value!r})", "min": f"tl.minimum(v, {value!r})"}[op]
    cand = SCALAR_CANDIDATE.format(kname="scalar_kernel", s_arg="s, " if held else "",
                                   s_call=f"self.{sname}, " if held else "", expr=expr, block=block,
                                   init_params=f", {init_params}" if held else "",
                                   init_body=f"        {init_body}\n" if held else "")
    how = f"passed as a kernel argument (self.{sname})" if held else "a compile-time constant in the kernel"
    plan = rng.choice([
        f"One flat elementwise kernel computing {expr} per element in fp32, the scalar {how}; "
        f"BLOCK={block}, grid cdiv(n, {block}), masked tail, stored in the input dtype.",
        f"A scalar operand needs no broadcast index: cdiv(n, {block}) programs each load {block} elements, compute "
        f"{expr} with the scalar {how}, and store once.",
    ])
    return Sample(f"bins-{idx:05d}", "binary", src, plan, cand)
