"""Normalisations over the last dim (layer, RMS, L1, L2), with or without affine parameters, and the
fused variant norm -> activation: one program per row, the whole row in registers. Also batch norm in
inference mode (a flat per-channel affine kernel), group norm (one program per group, chunked passes)
and the Frobenius norm of the whole tensor (two-stage reduction, then a scaling kernel)."""
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
    kname = "norm_kernel"
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


# -- batch norm in inference mode: a per-channel scale and shift, one flat elementwise kernel --------

BATCH_NORM_CANDIDATE = HEADER + '''

@triton.jit
def {kname}(x_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, y_ptr, n, C, inner, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = (offs // inner) % C
    v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.load(mean_ptr + c, mask=mask, other=0.0).to(tl.float32)
    var = tl.load(var_ptr + c, mask=mask, other=1.0).to(tl.float32)
    gamma = tl.load(w_ptr + c, mask=mask, other=1.0).to(tl.float32)
    beta = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
    v = (v - mean) * (gamma / tl.sqrt(var + eps)) + beta
    tl.store(y_ptr + offs, v.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self{init_params}):
        super().__init__()
{init_body}
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        C = x.shape[1]
        inner = n // (x.shape[0] * C)
        BLOCK = {block}
        {kname}[(triton.cdiv(n, BLOCK),)](x, {stats}, y, n, C, inner, {eps}, BLOCK=BLOCK)
        return y
'''

FROZEN_TRAIN = '''def train(self, mode: bool = True):
    super().train(mode)
    self.bn.eval()  # running statistics stay frozen
    return self
'''


def batch_norm(rng: random.Random, idx: int) -> Sample:
    """Batch norm in inference mode (running statistics, learned weight and bias) over (N, C), (N, C, L)
    or (N, C, H, W): y = (x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c], one flat kernel.

    The reference is inference-mode whatever mode the module is in (the verifier never calls eval()):
    `F.batch_norm(..., training=False)`, a `train()` override that keeps the BatchNorm in eval, or the
    formula on registered buffers. Running statistics are drawn at init (not 0 and 1), so a kernel that
    ignores them fails; the weight and bias are parameters the verifier perturbs."""
    style = rng.choice(["module", "frozen", "buffers", "manual"])
    ndim = rng.choice([2, 3, 4, 4])
    cname = rng.choice(["num_features", "channels", "C", "n_channels"])
    eps = rng.choice(["1e-5", "1e-5", "1e-3", "1e-4"])
    eps_param = style in ("buffers", "manual") and rng.random() < 0.5
    mean_init = rng.choice(["uniform_(-0.5, 0.5)", "normal_(0.0, 0.3)"])
    var_init = rng.choice(["uniform_(0.5, 2.0)", "uniform_(0.25, 1.5)"])
    if style in ("module", "frozen"):
        mod = "nn.BatchNorm2d" if ndim == 4 else "nn.BatchNorm1d"
        eps_arg = "" if eps == "1e-5" and rng.random() < 0.5 else f", eps={eps}"
        init = (f"self.bn = {mod}({cname}{eps_arg})\nself.bn.eval()\n"
                f"self.bn.running_mean.{mean_init}\nself.bn.running_var.{var_init}\n")
        mean, var, w, b, eps_src = ("self.bn.running_mean", "self.bn.running_var", "self.bn.weight", "self.bn.bias",
                                    "self.bn.eps")
        if style == "module":
            kw = rng.choice(["training=False, eps=self.bn.eps", "False, 0.0, self.bn.eps"])
            body = f"return F.batch_norm(x, {mean}, {var}, {w}, {b}, {kw})"
        else:
            body = "return self.bn(x)"
    else:
        wn, bn_, mn, vn = rng.choice([("weight", "bias", "running_mean", "running_var"),
                                      ("gamma", "beta", "mean", "var"),
                                      ("scale", "shift", "mu", "sigma2")])
        init = ("self.eps = eps\n" if eps_param else "") + \
            (f"self.{wn} = nn.Parameter(torch.ones({cname}))\nself.{bn_} = nn.Parameter(torch.zeros({cname}))\n"
             f"self.register_buffer(\"{mn}\", torch.empty({cname}).{mean_init})\n"
             f"self.register_buffer(\"{vn}\", torch.empty({cname}).{var_init})\n")
        mean, var, w, b = f"self.{mn}", f"self.{vn}", f"self.{wn}", f"self.{bn_}"
        eps_src = "self.eps" if eps_param else eps
        if style == "buffers":
            body = f"return F.batch_norm(x, {mean}, {var}, {w}, {b}, training=False, eps={eps_src})"
        else:
            shape = "(1, -1" + ", 1" * (ndim - 2) + ")"
            if rng.random() < 0.5:
                body = (f"shape = {shape}\ninv_std = torch.rsqrt({var} + {eps_src})\n"
                        f"return (x - {mean}.view(shape)) * (inv_std * {w}).view(shape) + {b}.view(shape)")
            else:
                body = (f"x_hat = (x - {mean}.view{shape}) / torch.sqrt({var}.view{shape} + {eps_src})\n"
                        f"return x_hat * {w}.view{shape} + {b}.view{shape}")
    batch = rng.choice(["batch_size", "N", "batch"])
    sizes = {batch: rng.choice([8, 16, 32, 64] if ndim > 2 else [64, 128, 256, 512]),
             cname: rng.choice([16, 32, 64, 96, 128] if ndim > 2 else [64, 128, 256, 500])}
    spatial = {2: (), 3: rng.choice([("length",), ("seq_len",), ("L",)]),
               4: rng.choice([("height", "width"), ("H", "W"), ("h", "w")])}[ndim]
    for s in spatial:
        sizes[s] = rng.choice([16, 28, 32, 64] if ndim == 4 else [50, 64, 128, 200])
    shape_src = ", ".join([batch, cname, *spatial])
    dist = rng.choice(["torch.randn", "torch.randn", "torch.rand"])
    init_params = cname + (f", eps={eps}" if eps_param else "")
    desc = "batch normalisation in inference mode (running statistics)" + \
        rng.choice(["", " over the channel dim", " with frozen statistics"])
    src = problem(rng, desc=desc, forward_args=["x"], body=body, sizes=sizes, inputs=[f"{dist}({shape_src})"],
                  init_params=init_params, init_body=init.rstrip(), init_inputs=cname,
                  methods=FROZEN_TRAIN if style == "frozen" else "")
    block = rng.choice([512, 1024, 2048])
    new_init = "".join(f"        {ln}\n" for ln in init.splitlines() if ln != "self.bn.eval()")
    cand = BATCH_NORM_CANDIDATE.format(kname="batch_norm_eval_kernel", init_params=", " + init_params,
                                       init_body=new_init, stats=f"{mean}, {var}, {w}, {b}", eps=eps_src,
                                       block=block)
    chan = {2: "offs % C", 3: "(offs // L) % C", 4: "(offs // (H*W)) % C"}[ndim]
    plan = rng.choice([
        f"Inference-mode batch norm is a per-channel affine map: y = (x - mean[c]) * weight[c] / sqrt(var[c] + eps) "
        f"+ bias[c]. One flat elementwise kernel over the contiguous tensor, channel c = {chan}; "
        f"BLOCK={block}, masked tail, fp32 math.",
        f"No reduction is needed (the running statistics are given): one kernel of cdiv(n, {block}) programs; each "
        f"element gathers mean, var, weight and bias of its channel {chan} and writes the normalised "
        "value; one read and one write of x.",
        f"Single pass, {block} elements per program: load x, look up its channel's running mean/var and affine "
        "parameters, compute (x - mean) * weight / sqrt(var + eps) + bias in fp32, store in the input dtype.",
    ])
    return Sample(f"bnorm-{idx:05d}", "norm", src, plan, cand)


# -- group norm: one program per (sample, group), three chunked passes over the group ----------------

GROUP_NORM_CANDIDATE = HEADER + '''

@triton.jit
def {kname}(x_ptr, {wb_args}y_ptr, group_size, hw, cpg, G, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    base = pid * group_size
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, group_size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + offs, mask=offs < group_size, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / group_size
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, group_size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < group_size
        d = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32) - mean
        acc += tl.where(mask, d * d, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / group_size + eps)
{chan}    for start in range(0, group_size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < group_size
        v = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        v = (v - mean) * rstd
{affine}        tl.store(y_ptr + base + offs, v.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self{init_params}):
        super().__init__()
{init_body}
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        N, C = x.shape[0], x.shape[1]
        G = {groups}
        hw = x.numel() // (N * C)
        group_size = (C // G) * hw
        {kname}[(N * G,)](x, {wb_call}y, group_size, hw, C // G, G, {eps}, BLOCK={block})
        return y
'''
GROUP_AFFINE = ("        c = g * cpg + offs // hw\n"
                "        gamma = tl.load(w_ptr + c, mask=mask, other=1.0).to(tl.float32)\n"
                "        beta = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)\n"
                "        v = v * gamma + beta\n")


def group_norm(rng: random.Random, idx: int) -> Sample:
    """Group norm over (N, C, L) or (N, C, H, W), with or without the per-channel affine.

    The channel count is num_groups * channels_per_group (both structural constants the verifier
    leaves alone), so shrunk and odd-perturbed sizes (batch, spatial) always divide into groups."""
    style = rng.choice(["module", "module", "functional", "manual"])
    affine = rng.random() < 0.75 if style == "module" else True
    ndim = rng.choice([3, 4, 4])
    eps = rng.choice(["1e-5", "1e-5", "1e-6", "1e-3"])
    gname, cname = rng.choice([("num_groups", "num_channels"), ("groups", "channels"), ("G", "C"),
                               ("n_groups", "features")])
    if style == "module":
        eps_arg = "" if eps == "1e-5" and rng.random() < 0.5 else f", eps={eps}"
        aff_arg = "" if affine else ", affine=False"
        attr = rng.choice(["gn", "norm", "group_norm"])
        init = f"self.{attr} = nn.GroupNorm({gname}, {cname}{eps_arg}{aff_arg})\n"
        body = f"return self.{attr}(x)"
        wb = f"self.{attr}.weight, self.{attr}.bias, " if affine else ""
        eps_src, groups = f"self.{attr}.eps", f"self.{attr}.num_groups"
    else:
        w_init = rng.choice(["ones", "ones", "randn"])
        init = (f"self.{gname} = {gname}\nself.eps = {eps}\n" if rng.random() < 0.5 else
                f"self.{gname} = {gname}\nself.eps = eps\n")
        init += f"self.weight = nn.Parameter(torch.{w_init}({cname}))\nself.bias = nn.Parameter(torch.zeros({cname}))\n"
        wb, eps_src, groups = "self.weight, self.bias, ", "self.eps", f"self.{gname}"
        shape = "(1, -1" + ", 1" * (ndim - 2) + ")"
        if style == "functional":
            body = f"return F.group_norm(x, self.{gname}, self.weight, self.bias, eps=self.eps)"
        else:
            body = (f"n = x.shape[0]\ng = x.reshape(n, self.{gname}, -1)\n"
                    "mean = g.mean(dim=-1, keepdim=True)\n"
                    + rng.choice(["var = g.var(dim=-1, keepdim=True, unbiased=False)\n",
                                  "var = ((g - mean) ** 2).mean(dim=-1, keepdim=True)\n"])
                    + "g = (g - mean) / torch.sqrt(var + self.eps)\n"
                    f"return g.reshape(x.shape) * self.weight.view{shape} + self.bias.view{shape}")
    eps_param = style != "module" and "self.eps = eps" in init
    batch = rng.choice(["batch_size", "N", "batch"])
    spatial = rng.choice([("length",), ("seq_len",)]) if ndim == 3 else rng.choice([("height", "width"), ("H", "W")])
    groups_n, cpg = rng.choice([(2, 8), (4, 4), (4, 8), (8, 4), (8, 8), (16, 4), (3, 8), (6, 4)])
    sizes = {batch: rng.choice([4, 8, 16, 32]), gname: groups_n, "channels_per_group": cpg}
    for s in spatial:
        sizes[s] = rng.choice([16, 24, 32, 64] if ndim == 4 else [64, 100, 256, 500])
    sizes[cname] = f"{gname} * channels_per_group"
    shape_src = ", ".join([batch, cname, *spatial])
    order = rng.random() < 0.5
    init_params = (f"{cname}, {gname}" if order else f"{gname}, {cname}") + (f", eps={eps}" if eps_param else "")
    init_inputs = f"{cname}, {gname}" if order else f"{gname}, {cname}"
    desc = f"group normalisation{'' if affine else ' without affine parameters'}" + \
        rng.choice(["", " over the channel groups", f" ({ndim}-D input)"])
    src = problem(rng, desc=desc, forward_args=["x"], body=body, sizes=sizes,
                  inputs=[f"{rng.choice(['torch.randn', 'torch.randn', 'torch.rand'])}({shape_src})"],
                  init_params=init_params, init_body=init.rstrip(), init_inputs=init_inputs)
    block = rng.choice([256, 512, 1024])
    new_init = "".join(f"        {ln}\n" for ln in init.splitlines())
    cand = GROUP_NORM_CANDIDATE.format(
        kname="group_norm_kernel", wb_args="w_ptr, b_ptr, " if affine else "",
        chan="    g = pid % G\n" if affine else "", affine=GROUP_AFFINE if affine else "",
        init_params=", " + init_params, init_body=new_init, groups=groups, wb_call=wb, eps=eps_src, block=block)
    aff = ", multiplies by weight[c] and adds bias[c] (c = g * C/G + offset // HW)" if affine else ""
    plan = rng.choice([
        f"A group of sample n is one contiguous span of C/G * HW elements, so one program per (n, g): grid N * G. "
        f"Three chunked passes of BLOCK={block} over the span: the mean, then the biased variance of x - mean "
        f"(fp32 accumulators), then normalise{aff} and store.",
        f"Grid = N * num_groups, one program per group. It loops over its contiguous group in {block}-element "
        f"masked chunks twice to get the mean and the variance in fp32, then a third time to write (x - mean) * "
        f"rstd{aff}.",
        f"Group norm without materialising the (N, G, -1) view: program pid owns elements [pid * group_size, "
        f"(pid + 1) * group_size); two reduction loops (mean, then variance; BLOCK={block}, tail masked) and one "
        f"output loop that normalises{aff}.",
    ])
    return Sample(f"gnorm-{idx:05d}", "norm", src, plan, cand)


# -- Frobenius norm: a whole-tensor reduction, then a scale -------------------------------------------

FROBENIUS_CANDIDATE = HEADER + '''

@triton.jit
def fro_partial_kernel(x_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(part_ptr + pid, tl.sum(x * x, axis=0))


@triton.jit
def fro_finish_kernel(part_ptr, norm_ptr, n_parts, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, n_parts, BLOCK):
        p = i + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + p, mask=p < n_parts, other=0.0)
    tl.store(norm_ptr, tl.sqrt(tl.sum(acc, axis=0)))


@triton.jit
def fro_scale_kernel(x_ptr, norm_ptr, y_ptr, n, {eps_arg}BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    inv = 1.0 / {denom}
    v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (v * inv).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self{init_params}):
        super().__init__()
{init_body}
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = {block}
        n_parts = triton.cdiv(n, BLOCK)
        partials = torch.empty(n_parts, device=x.device, dtype=torch.float32)
        norm = torch.empty(1, device=x.device, dtype=torch.float32)
        fro_partial_kernel[(n_parts,)](x, partials, n, BLOCK=BLOCK)
        fro_finish_kernel[(1,)](partials, norm, n_parts, BLOCK=1024)
        fro_scale_kernel[(n_parts,)](x, norm, y, n, {eps_call}BLOCK=BLOCK)
        return y
'''


def frobenius_norm(rng: random.Random, idx: int) -> Sample:
    """x divided by its Frobenius norm (the 2-norm of the whole tensor), optionally plus eps: a
    two-stage sum of squares (per-block partials, one finishing program) and a scaling kernel."""
    eps = rng.choice([None, None, "1e-6", "1e-8"])
    norm_src = rng.choice(["torch.norm(x, p='fro')", "torch.linalg.norm(x)", "torch.linalg.vector_norm(x)",
                           "x.pow(2).sum().sqrt()", "torch.sqrt(torch.sum(x * x))", "x.norm()"])
    name = rng.choice(["norm", "fro", "total", "scale"])
    init_params = init_body = init_inputs = ""
    if eps:
        if rng.random() < 0.5:
            init_params, init_body, init_inputs = f"eps: float = {eps}", "self.eps = eps", eps
            eps_src = "self.eps"
        else:
            eps_src = eps
        body = f"{name} = {norm_src}\nreturn x / ({name} + {eps_src})"
    elif "sqrt()" not in norm_src and rng.random() < 0.3:
        body = f"return x / {norm_src}"
    elif norm_src.startswith("torch.sqrt(") and rng.random() < 0.5:
        body = f"return x * torch.rsqrt(torch.sum(x * x))"
    else:
        body = f"{name} = {norm_src}\nreturn x / {name}"
    ndim = rng.choice([2, 3, 3, 4])
    names = {2: rng.choice([("rows", "cols"), ("M", "N"), ("batch_size", "hidden")]),
             3: rng.choice([("batch", "seq_len", "d_model"), ("B", "T", "D"), ("n", "c", "length")]),
             4: rng.choice([("batch", "channels", "height", "width"), ("N", "C", "H", "W")])}[ndim]
    vals = {2: [[64, 128, 256, 1000], [128, 256, 512, 777]], 3: [[4, 8, 16], [32, 64, 100], [64, 128, 256]],
            4: [[4, 8, 16], [8, 16, 32], [16, 32, 56], [16, 32, 56]]}[ndim]
    sizes = {k: rng.choice(v) for k, v in zip(names, vals)}
    dist = rng.choice(["torch.randn", "torch.rand"])
    desc = rng.choice(["x scaled by the inverse of its Frobenius norm", "Frobenius normalisation of the whole tensor",
                       "x / ||x||_F"])
    src = problem(rng, desc=desc, forward_args=["x"], body=body, sizes=sizes,
                  inputs=[f"{dist}({', '.join(names)})"], init_params=init_params, init_body=init_body,
                  init_inputs=init_inputs)
    block = rng.choice([512, 1024, 2048])
    cand = FROBENIUS_CANDIDATE.format(
        block=block, eps_arg="eps, " if eps else "", eps_call=f"{eps_src}, " if eps else "",
        denom="(tl.load(norm_ptr) + eps)" if eps else "tl.load(norm_ptr)",
        init_params=f", {init_params}" if init_params else "", init_body=f"        {init_body}\n" if init_body else "")
    plus = " + eps" if eps else ""
    plan = rng.choice([
        f"The norm needs the whole tensor before any output, so three kernels: per-block sums of squares "
        f"(BLOCK={block}, one fp32 partial per program), one program that adds the partials and takes the sqrt, then a "
        f"flat kernel that multiplies x by 1 / (norm{plus}). Deterministic, no atomics.",
        f"Two-stage reduction then a scale: cdiv(n, {block}) programs store their block's sum of x^2; a single "
        f"program sums those partials in chunks of 1024 into ||x||_F; a second flat pass over x writes x / (||x||_F{plus}).",
        f"Reduce, then map: partial sums of squares per {block}-element block (masked tail adds 0), a one-program "
        f"finish to the Frobenius norm, and an elementwise kernel scaling every element by its inverse{plus and ' (eps added first)'}.",
    ])
    return Sample(f"frob-{idx:05d}", "norm", src, plan, cand)
