"""Normalisations over the last dim (layer, RMS, L1, L2), with or without affine parameters, and the
fused variant norm -> activation. One program per row, the whole row in registers."""
from __future__ import annotations

import random

from .common import ACTIVATIONS, HEADER, Sample, Unary, activation_expr, problem, triton_steps

NORM_CANDIDATE = HEADER + '''

@triton.jit
def {kname}(x_ptr, {wb_args}y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    v = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
{stats}
{affine}{steps}
    tl.store(y_ptr + row * n_cols + offs, v.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self{init_params}):
        super().__init__()
{init_body}
    def forward(self, x):
        x = x.contiguous()
        n_cols = x.shape[-1]
        y = torch.empty_like(x)
        {kname}[(x.numel() // n_cols,)](x, {wb_call}y, n_cols, {eps}, BLOCK=triton.next_power_of_2(n_cols))
        return y
'''

# Triton statistics of a row `v` (padded with zeros), leaving the normalised row in `v`.
STATS = {
    "layer": ("    mean = tl.sum(v, axis=0) / n_cols\n    d = tl.where(mask, v - mean, 0.0)\n"
              "    var = tl.sum(d * d, axis=0) / n_cols\n    v = d / tl.sqrt(var + eps)"),
    "rms": "    ms = tl.sum(v * v, axis=0) / n_cols\n    v = v / tl.sqrt(ms + eps)",
    "l1": "    s = tl.sum(tl.abs(v), axis=0)\n    v = v / {denom}",
    "l2": "    ss = tl.sum(v * v, axis=0)\n    v = v / {denom}",
}
DESC = {"layer": "layer normalisation", "rms": "RMS normalisation", "l1": "L1 normalisation",
        "l2": "L2 normalisation"}


def _torch_norm(rng: random.Random, kind: str, affine: str, eps_src: str) -> tuple[str, str, str, str, str]:
    """(init_body, forward expression of x, init_body of ModelNew, weight/bias sources, denominator)
    for one way of writing the norm in PyTorch. `affine` is none | weight | weight_bias."""
    w = "self.weight" if affine != "none" else None
    b = "self.bias" if affine == "weight_bias" else None
    params = ""
    if w:
        params += f"self.weight = nn.Parameter(torch.{rng.choice(['ones', 'randn'])}(features))\n"
    if b:
        params += "self.bias = nn.Parameter(torch.zeros(features))\n"
    if kind == "layer":
        if affine == "weight_bias" and rng.random() < 0.5:
            init = f"self.norm = nn.LayerNorm(features, eps={eps_src})\n"
            return init, "self.norm(x)", init, "self.norm.weight, self.norm.bias, ", ""
        if rng.random() < 0.6:
            args = f", {w}, {b}" if w and b else (f", {w}" if w else "")
            expr = f"F.layer_norm(x, (x.shape[-1],){args}, eps={eps_src})"
        else:
            expr = (f"(x - x.mean(dim=-1, keepdim=True)) / torch.sqrt(x.var(dim=-1, keepdim=True, unbiased=False)"
                    f" + {eps_src})")
            expr = _affine(expr, w, b)
        return params, expr, params, _wb(w, b), ""
    if kind == "rms":
        if affine == "weight" and rng.random() < 0.4:
            init = f"self.norm = nn.RMSNorm(features, eps={eps_src})\n"
            return init, "self.norm(x)", init, "self.norm.weight, ", ""
        expr = rng.choice([f"x / torch.sqrt(torch.mean(x ** 2, dim=-1, keepdim=True) + {eps_src})",
                           f"x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + {eps_src})"])
        return params, _affine(expr, w, b), params, _wb(w, b), ""
    if kind == "l1":
        expr = rng.choice(["x / torch.sum(torch.abs(x), dim=-1, keepdim=True)",
                           "x / x.abs().sum(dim=-1, keepdim=True)"])
        return params, _affine(expr, w, b), params, _wb(w, b), "s"
    if rng.random() < 0.5:
        expr = "F.normalize(x, p=2.0, dim=-1)"
        return params, _affine(expr, w, b), params, _wb(w, b), "tl.maximum(tl.sqrt(ss), 1e-12)"
    expr = rng.choice(["x / torch.norm(x, p=2, dim=-1, keepdim=True)",
                       "x / torch.sqrt((x * x).sum(dim=-1, keepdim=True))"])
    return params, _affine(expr, w, b), params, _wb(w, b), "tl.sqrt(ss)"


def _affine(expr: str, w: str | None, b: str | None) -> str:
    if w and b:
        return f"({expr}) * {w} + {b}"
    return f"({expr}) * {w}" if w else expr


def _wb(w: str | None, b: str | None) -> str:
    return "".join(f"{p}, " for p in (w, b) if p)


def norm(rng: random.Random, idx: int, acts: list[Unary] | None = None) -> Sample:
    """A normalisation over the last dim, optionally followed by activations (then family `fused`)."""
    kind = rng.choice(["layer", "layer", "rms", "rms", "l1", "l2"])
    affine = rng.choice(["none", "weight", "weight_bias"]) if kind != "l1" else rng.choice(["none", "weight"])
    if kind == "layer" and affine == "weight":
        affine = "weight_bias"
    eps = rng.choice(["1e-5", "1e-6", "1e-5"]) if kind in ("layer", "rms") else None
    eps_style = rng.choice(["param", "const"]) if eps else None
    eps_src = "self.eps" if eps_style == "param" else (eps or "")
    params, expr, new_params, wb, denom = _torch_norm(rng, kind, affine, eps_src)
    init_body = ("self.eps = eps\n" if eps_style == "param" else "") + params
    init_params = "features" + (f", eps={eps}" if eps_style == "param" else "")
    body = f"return {expr}"
    if acts:
        body = f"y = {expr}\nreturn {activation_expr(rng, acts, 'y')}"
    three_d = rng.random() < 0.4
    batch = rng.choice([8, 16, 32, 64])
    features = rng.choice([64, 128, 256, 300, 512, 768, 1000, 1024])
    sizes = {"batch_size": batch} | ({"seq_len": rng.choice([16, 32, 50])} if three_d else {}) | {"features": features}
    shape = "batch_size, seq_len, features" if three_d else "batch_size, features"
    dtype = ".half()" if affine == "none" and kind in ("layer", "rms") and rng.random() < 0.3 else ""
    desc = DESC[kind] + ("" if affine == "none" else " with learned " + affine.replace("_", " and ")) + \
        (" followed by " + " then ".join(a.name for a in acts) if acts else "")
    src = problem(rng, desc=desc, forward_args=["x"], body=body, sizes=sizes, inputs=[f"torch.randn({shape}){dtype}"],
                  init_params=init_params, init_body=init_body.rstrip(), init_inputs="features")
    stats = STATS[kind].format(denom=denom)
    affine_src = ""
    if wb:
        affine_src = "    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)\n"
        if affine == "weight_bias":
            affine_src += ("    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)\n"
                           "    v = v * w + b\n")
        else:
            affine_src += "    v = v * w\n"
    wb_args = "w_ptr, b_ptr, " if affine == "weight_bias" else ("w_ptr, " if wb else "")
    kname = f"{kind}_norm" + ("_" + "_".join(a.name for a in acts) if acts else "") + "_kernel"
    new_init = ("        self.eps = eps\n" if eps_style == "param" else "") + \
        "".join(f"        {ln}\n" for ln in new_params.splitlines())
    cand = NORM_CANDIDATE.format(kname=kname, wb_args=wb_args, stats=stats, affine=affine_src,
                                 steps=triton_steps(acts) if acts else "", init_params=", " + init_params,
                                 init_body=new_init, wb_call=wb, eps=eps_src or "0.0")
    cand = cand.replace("\n\n    tl.store", "\n    tl.store")
    what = {"layer": "mean and biased variance", "rms": "mean of squares", "l1": "sum of |x|",
            "l2": "sum of squares"}[kind]
    fused = (", then " + " then ".join(a.name for a in acts) + " before the store") if acts else ""
    aff = {"none": "", "weight": ", multiply by the weight",
           "weight_bias": ", multiply by the weight and add the bias"}[affine]
    plan = rng.choice([
        f"One program per row (rows = numel / features), the whole row in one masked block of "
        f"next_power_of_2(features): {what} in fp32, normalise{aff}{fused}; one read and one write of x.",
        f"{DESC[kind][0].upper() + DESC[kind][1:]} as a single row kernel: grid = number of rows, BLOCK = next power of two of "
        f"the row length, padding masked to zero so it adds nothing to the {what}; then normalise{aff}{fused}.",
        f"Fuse the whole {DESC[kind]}{' and the activation' if acts else ''} into one kernel: each program loads a "
        f"row (masked), reduces the {what} in registers, then writes the normalised row{aff}{fused}.",
    ])
    return Sample(f"{'fnorm' if acts else 'norm'}-{idx:05d}", "fused" if acts else "norm", src, plan, cand)


def norm_act(rng: random.Random, idx: int) -> Sample:
    """Normalisation followed by one or two activations, fused into the row kernel."""
    return norm(rng, idx, rng.sample(ACTIVATIONS, rng.choice([1, 1, 2])))
