"""Normalisations that are not "one short last-dim row in registers": over the channel dim (dim=1) of a 3-D or 4-D
tensor, and over long rows (a 2-D row of thousands of elements spelled `dim=1`, or a LayerNorm / RMS norm over
several trailing dims), each with a kernel that walks the reduced axis in a loop.

Why a table of its own: the main streams normalise the last dim with the whole row in one block, and a model
trained on them scored 0/16 on KernelBench's RMSNorm (dim=1 of a 4-D tensor), L1/L2 norms (`dim=1`, rows of 65535)
and LayerNorm (over three trailing dims): it normalised the wrong axis or one block of the row
(training/default_model/README.md, 2026-12-05). `generate(..., table="norm-dims")` draws from here only, with its own
random stream, so the committed corpora stay reproducible.
"""
from __future__ import annotations

import math
import random

from .common import HEADER, Sample, problem

# -- over dim=1 of (B, C, *spatial): one program per (sample, block of spatial positions), a loop over C ----------

CHANNEL_CANDIDATE = HEADER + '''

@triton.jit
def {kname}(x_ptr, {w_arg}y_ptr, C, inner, eps, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < inner
    base = b * C * inner + offs
{acc_init}
    for c in range(0, C):
        v = tl.load(x_ptr + base + c * inner, mask=mask, other=0.0).to(tl.float32)
{acc_step}
{stat}
    for c in range(0, C):
        v = tl.load(x_ptr + base + c * inner, mask=mask, other=0.0).to(tl.float32)
        v = {normalise}
{affine}        tl.store(y_ptr + base + c * inner, v.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self{init_params}):
        super().__init__()
{init_body}
    def forward(self, x):
        x = x.contiguous()
        B, C = x.shape[0], x.shape[1]
        inner = x.numel() // (B * C)
        y = torch.empty_like(x)
        BLOCK = {block}
        {kname}[(B, triton.cdiv(inner, BLOCK))](x, {w_call}y, C, inner, {eps}, BLOCK=BLOCK)
        return y
'''

# -- over the trailing dims, rows of any length: one program per row, chunked passes ----------------------------

ROW_CANDIDATE = HEADER + '''

@triton.jit
def {kname}(x_ptr, {w_arg}y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
{acc_init_blk}
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(x_row + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
{acc_step}
{reduce}
{stat}
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        v = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
        v = {normalise}
{affine}        tl.store(y_row + offs, v.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self{init_params}):
        super().__init__()
{init_body}
    def forward(self, x):
        x = x.contiguous()
        n_cols = {n_cols}
        y = torch.empty_like(x)
        BLOCK = {block}
        {kname}[(x.numel() // n_cols,)](x, {w_call}y, n_cols, {eps}, BLOCK=BLOCK)
        return y
'''

# kind: (accumulators, per-element step, statistics from the accumulated sums (N elements), normalised v)
KINDS = {
    "rms": (("s2",), "s2 += v * v", "inv = 1.0 / tl.sqrt(s2 / N + eps)", "v * inv"),
    "l1_sum": (("s1",), "s1 += tl.abs(v)", "inv = 1.0 / s1", "v * inv"),
    "l1_mean": (("s1",), "s1 += tl.abs(v)", "inv = N / s1", "v * inv"),
    "l2": (("s2",), "s2 += v * v", "inv = 1.0 / tl.sqrt(s2)", "v * inv"),
    "l2_clamped": (("s2",), "s2 += v * v", "inv = 1.0 / tl.maximum(tl.sqrt(s2), 1e-12)", "v * inv"),
    "layer": (("s1", "s2"), "s1 += v\n{ind}s2 += v * v",
              "mean = s1 / N\n{ind}var = tl.maximum(s2 / N - mean * mean, 0.0)\n{ind}inv = 1.0 / tl.sqrt(var + eps)",
              "(v - mean) * inv"),
}
WHAT = {"rms": "the mean of squares", "l1_sum": "the sum of |x|", "l1_mean": "the mean of |x|",
        "l2": "the sum of squares", "l2_clamped": "the sum of squares", "layer": "the sum and the sum of squares"}
DESC = {"rms": "RMS normalisation", "l1_sum": "L1 normalisation", "l1_mean": "normalisation by the mean absolute value",
        "l2": "L2 normalisation", "l2_clamped": "L2 normalisation", "layer": "layer normalisation"}


def _torch_expr(rng: random.Random, kind: str, dims: str, eps: str) -> str:
    """The PyTorch body (a `return ...`, maybe with a line before it) normalising x over `dims`."""
    kd = f"dim={dims}, keepdim=True"
    if kind == "rms":
        return rng.choice([f"rms = torch.sqrt(torch.mean(x ** 2, {kd}) + {eps})\nreturn x / rms",
                           f"return x * torch.rsqrt(x.pow(2).mean({kd}) + {eps})",
                           f"return x / torch.sqrt(x.pow(2).mean({kd}) + {eps})"])
    if kind == "l1_sum":
        return rng.choice([f"return x / torch.sum(torch.abs(x), {kd})", f"return x / x.abs().sum({kd})"])
    if kind == "l1_mean":
        return rng.choice([f"return x / torch.mean(torch.abs(x), {kd})", f"return x / x.abs().mean({kd})"])
    if kind == "l2":
        return rng.choice([f"return x / torch.norm(x, p=2, {kd})", f"return x / x.pow(2).sum({kd}).sqrt()",
                           f"norm = torch.sqrt(torch.sum(x * x, {kd}))\nreturn x / norm"])
    if kind == "l2_clamped":
        return f"return F.normalize(x, p=2.0, dim={dims})"
    return rng.choice([f"mean = x.mean({kd})\nvar = x.var({kd}, unbiased=False)\nreturn (x - mean) / torch.sqrt(var + {eps})",
                       f"mean = torch.mean(x, {kd})\nvar = ((x - mean) ** 2).mean({kd})\n"
                       f"return (x - mean) * torch.rsqrt(var + {eps})"])


def _eps(rng: random.Random, kind: str) -> tuple[str, str, str]:
    """(literal, source in the problem, source in the candidate's launch) of eps; a module attribute half the time."""
    if kind not in ("rms", "layer"):
        return "", "", "0.0"
    lit = rng.choice(["1e-5", "1e-6", "1e-5", "1e-8"])
    return (lit, "self.eps", "self.eps") if rng.random() < 0.5 else (lit, lit, lit)


def _fill(kind: str, n: str) -> dict[str, str]:
    """The kind's kernel pieces, indented for both templates (step inside a loop, stat in the body), N spelled `n`."""
    accs, step, stat, normalise = KINDS[kind]
    return {"accs": accs, "acc_step": " " * 8 + step.format(ind=" " * 8),
            "stat": "    " + stat.replace("N", n).format(ind="    "), "normalise": normalise}


def channel_norm(rng: random.Random, idx: int) -> Sample:
    """A norm over dim=1 (channels) of a 3-D or 4-D tensor, optionally times a per-channel weight."""
    kind = rng.choice(["rms", "rms", "l1_sum", "l1_mean", "l2", "l2_clamped", "layer"])
    four_d = rng.random() < 0.6
    cname = rng.choice(["features", "channels", "C", "num_features"])
    spatial = rng.choice([("dim1", "dim2"), ("H", "W"), ("height", "width")]) if four_d else \
        (rng.choice(["length", "seq_len", "L"]),)
    batch = rng.choice(["batch_size", "B", "N"])
    sizes = {batch: rng.choice([2, 4, 8, 16, 32, 64]), cname: rng.choice([3, 8, 16, 32, 64, 128])}
    for s in spatial:
        sizes[s] = rng.choice([16, 32, 64, 128, 256, 512] if four_d else [64, 128, 500, 1024, 4096])
    while math.prod(sizes.values()) > (1 << 27):
        big = max(spatial, key=sizes.get)
        sizes[big] //= 2
    lit, eps_src, eps_call = _eps(rng, kind)
    dims = rng.choice(["1", "1", "-3" if four_d else "-2"])
    body = _torch_expr(rng, kind, dims, eps_src)
    weight = kind in ("rms", "layer") and rng.random() < 0.35
    view = "(1, -1, 1, 1)" if four_d else "(1, -1, 1)"
    init_params = cname + (f", eps: float = {lit}" if eps_src == "self.eps" else "")
    init_body = (f"self.{cname} = {cname}\n" if rng.random() < 0.5 else "") + \
        ("self.eps = eps\n" if eps_src == "self.eps" else "")
    if weight:
        init_body += f"self.weight = nn.Parameter(torch.ones({cname}))\n"
        last = body.splitlines()[-1][len("return "):]
        body = "\n".join(body.splitlines()[:-1] + [f"y = {last}", f"return y * self.weight.view{view}"])
    dist = rng.choice(["torch.randn", "torch.randn", "torch.rand"])
    desc = DESC[kind] + " over the channel dim" + (" with a learned per-channel weight" if weight else "")
    src = problem(rng, desc=desc, forward_args=["x"], body=body, sizes=sizes,
                  inputs=[f"{dist}({', '.join([batch, cname, *spatial])})"], init_params=init_params,
                  init_body=init_body.rstrip(), init_inputs=cname)
    f = _fill(kind, "C")
    acc_init = "\n".join(f"    {a} = tl.zeros([BLOCK], dtype=tl.float32)" for a in f["accs"])
    affine = "        v = v * tl.load(w_ptr + c).to(tl.float32)\n" if weight else ""
    block = rng.choice([128, 256, 512, 1024])
    new_init = "".join(f"        {ln}\n" for ln in init_body.splitlines())
    cand = CHANNEL_CANDIDATE.format(
        kname="channel_norm_kernel", w_arg="w_ptr, " if weight else "", acc_init=acc_init, acc_step=f["acc_step"],
        stat=f["stat"], normalise=f["normalise"], affine=affine, init_params=", " + init_params,
        init_body=new_init, block=block, w_call="self.weight, " if weight else "", eps=eps_call)
    inner = " * ".join(spatial)
    plan = rng.choice([
        f"The reduction runs over dim 1 (the {cname} axis), not the last dim: view x as (B, C, inner) with inner = "
        f"{inner}, consecutive channels of one position are `inner` elements apart. Grid (B, cdiv(inner, {block})): "
        f"each program owns {block} positions of one sample, loops over the C channels accumulating {WHAT[kind]} "
        f"in fp32, then loops again to write the normalised values{', times weight[c]' if weight else ''}.",
        f"{DESC[kind][0].upper() + DESC[kind][1:]} along channels with keepdim: every (sample, spatial position) has "
        f"its own statistic over C values spaced inner = {inner} apart. One program per (sample, block of {block} "
        f"positions), two loops over c: accumulate {WHAT[kind]}, then normalise and store; loads stay coalesced "
        "along the spatial axis.",
    ])
    return Sample(f"cnorm-{idx:05d}", "norm", src, plan, cand)


def long_row_norm(rng: random.Random, idx: int) -> Sample:
    """A norm over long rows: dim=1 of a 2-D tensor (rows of thousands), or over the trailing dims of a 3-D/4-D
    tensor (nn.LayerNorm with a tuple shape, F.layer_norm over x.shape[k:], a mean over a tuple of dims)."""
    trailing = rng.random() < 0.5
    if trailing:
        kind = rng.choice(["layer", "layer", "layer", "rms"])
        cname = rng.choice(["features", "channels", "C"])
        spatial = rng.choice([("dim1", "dim2"), ("H", "W")])
        batch = rng.choice(["batch_size", "B"])
        sizes = {batch: rng.choice([2, 4, 8, 16]), cname: rng.choice([8, 16, 32, 64]),
                 spatial[0]: rng.choice([16, 32, 64, 128, 256]), spatial[1]: rng.choice([16, 32, 64, 128, 256])}
        names, ndims = [cname, *spatial], 3
    else:
        kind = rng.choice(["rms", "l1_sum", "l1_mean", "l2", "l2_clamped", "layer"])
        batch, cname = rng.choice([("batch_size", "dim"), ("batch_size", "features"), ("B", "N"), ("n_rows", "n_cols")])
        sizes = {batch: rng.choice([4, 16, 64, 256, 1024, 4096]), cname: rng.choice([2048, 4095, 8192, 16384, 65535, 100000])}
        names, ndims, spatial = [cname], 1, ()
    while math.prod(sizes.values()) > (1 << 27):
        sizes[batch if sizes[batch] > 2 else max(names, key=sizes.get)] //= 2
    lit, eps_src, eps_call = _eps(rng, kind)
    shape_src = ", ".join([batch, *names])
    init_params = init_body = init_inputs = ""
    w_arg = w_call = affine = ""
    n_cols = "x.shape[-1]" if ndims == 1 else "x[0].numel()"
    if trailing and kind == "layer" and rng.random() < 0.6:
        # nn.LayerNorm over a tuple of trailing dims: learned weight and bias of that shape
        init_params = "normalized_shape"
        init_body = f"self.ln = nn.LayerNorm(normalized_shape{'' if lit in ('1e-5', '') else f', eps={lit}'})"
        body = "return self.ln(x)"
        init_inputs = f"({', '.join(names)})"
        w_arg, w_call, eps_call = "w_ptr, b_ptr, ", "self.ln.weight, self.ln.bias, ", "self.ln.eps"
        affine = ("        v = v * tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32) + "
                  "tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)\n")
        n_cols = "self.ln.weight.numel()"
        new_init = "        " + init_body + "\n"
    else:
        if trailing and kind == "layer" and rng.random() < 0.5:
            body = f"return F.layer_norm(x, x.shape[1:], eps={eps_src})"
        else:
            dims = "1" if ndims == 1 else rng.choice(["(1, 2, 3)", "(-3, -2, -1)", "[1, 2, 3]"])
            if ndims == 1 and rng.random() < 0.3:
                dims = "-1"
            body = _torch_expr(rng, kind, dims, eps_src)
        if eps_src == "self.eps":
            init_params, init_body = f"eps: float = {lit}", "self.eps = eps"
        new_init = f"        {init_body}\n" if init_body else ""
    dist = rng.choice(["torch.randn", "torch.randn", "torch.rand"])
    desc = DESC[kind] + (" over all but the batch dim" if trailing else " of each row")
    src = problem(rng, desc=desc, forward_args=["x"], body=body, sizes=sizes, inputs=[f"{dist}({shape_src})"],
                  init_params=init_params, init_body=init_body, init_inputs=init_inputs)
    f = _fill(kind, "n_cols")
    acc_init = "\n".join(f"    {a}_blk = tl.zeros([BLOCK], dtype=tl.float32)" for a in f["accs"])
    step = f["acc_step"]
    for a in f["accs"]:
        step = step.replace(f"{a} +=", f"{a}_blk +=")
    reduce = "\n".join(f"    {a} = tl.sum({a}_blk, axis=0)" for a in f["accs"])
    block = rng.choice([512, 1024, 2048, 4096])
    cand = ROW_CANDIDATE.format(
        kname="row_norm_kernel", w_arg=w_arg, acc_init_blk=acc_init, acc_step=step, reduce=reduce, stat=f["stat"],
        normalise=f["normalise"], affine=affine, init_params=f", {init_params}" if init_params else "",
        init_body=new_init, n_cols=n_cols, block=block, w_call=w_call, eps=eps_call)
    row = f"{' * '.join(names)} elements (everything after the batch dim)" if trailing else f"{cname} elements"
    plan = rng.choice([
        f"Each row has {row}: far too long for one block, so one program per row walks it in chunks of {block}. "
        f"Pass 1 accumulates {WHAT[kind]} in an fp32 vector and reduces it once; pass 2 re-reads the row, "
        f"normalises{' and applies the weight and bias' if affine else ''} and stores.",
        f"Grid = number of rows (numel / row length, row length = {row}). Two chunked loops of BLOCK={block}: "
        f"the first sums {WHAT[kind]} (masked tail adds zero), the second writes the normalised row"
        f"{', with the elementwise weight and bias of the normalized shape' if affine else ''}.",
    ])
    return Sample(f"lnorm-{idx:05d}", "norm", src, plan, cand)
