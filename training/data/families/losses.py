"""Losses reduced to a scalar (MSE, L1, hinge, smooth-L1, Huber): a two-stage reduction, per-block
partial sums then one program that adds the partials (deterministic, no atomics)."""
from __future__ import annotations

import random

from .common import HEADER, Sample, problem

LOSS_CANDIDATE = HEADER + '''

@triton.jit
def {kname}_partial(p_ptr, t_ptr, part_ptr, n, {extra_arg}BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
{elem}
    tl.store(part_ptr + pid, tl.sum(tl.where(mask, e, 0.0), axis=0))


@triton.jit
def {kname}_finish(part_ptr, out_ptr, n_parts, scale, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, n_parts, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + offs, mask=offs < n_parts, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) * scale)


class ModelNew(nn.Module):
    def __init__(self{init_params}):
        super().__init__()
{init_body}
    def forward(self, predictions, targets):
        predictions = predictions.contiguous()
        targets = targets.contiguous()
        n = predictions.numel()
        BLOCK = {block}
        n_parts = triton.cdiv(n, BLOCK)
        partials = torch.empty(n_parts, device=predictions.device, dtype=torch.float32)
        out = torch.empty((), device=predictions.device, dtype=torch.float32)
        {kname}_partial[(n_parts,)](predictions, targets, partials, n, {extra_call}BLOCK=BLOCK)
        {kname}_finish[(1,)](partials, out, n_parts, {scale}, BLOCK=1024)
        return out
'''


def loss(rng: random.Random, idx: int) -> Sample:
    """One of MSE, L1, hinge, smooth-L1 and Huber loss with mean or sum reduction."""
    kind = rng.choice(["mse", "mse", "l1", "hinge", "hinge", "smooth_l1", "huber"])
    red = rng.choice(["mean", "mean", "sum"])
    param = None
    targets = "torch.randn({shape})"
    init_params = init_body = init_inputs = ""
    if kind == "mse":
        forms = {"mean": ["torch.mean((predictions - targets) ** 2)", "F.mse_loss(predictions, targets)",
                          "((predictions - targets) * (predictions - targets)).mean()"],
                 "sum": ["torch.sum((predictions - targets) ** 2)", "F.mse_loss(predictions, targets, reduction='sum')"]}
        elem = "    d = p - t\n    e = d * d"
        what = "squared error"
    elif kind == "l1":
        forms = {"mean": ["F.l1_loss(predictions, targets)", "(predictions - targets).abs().mean()"],
                 "sum": ["F.l1_loss(predictions, targets, reduction='sum')", "torch.abs(predictions - targets).sum()"]}
        elem = "    e = tl.abs(p - t)"
        what = "absolute error"
    elif kind == "hinge":
        forms = {"mean": ["torch.mean(torch.clamp(1 - predictions * targets, min=0))",
                          "F.relu(1.0 - predictions * targets).mean()"],
                 "sum": ["torch.clamp(1 - predictions * targets, min=0).sum()"]}
        targets = rng.choice(["torch.randint(0, 2, {size}).float() * 2 - 1", "torch.sign(torch.randn({shape}))"])
        elem = "    e = tl.maximum(1.0 - p * t, 0.0)"
        what = "hinge term max(0, 1 - p * t)"
    elif kind == "smooth_l1":
        param = rng.choice([1.0, 0.5, 2.0])
        forms = {r: [f"F.smooth_l1_loss(predictions, targets, reduction='{r}', beta=self.beta)"] for r in ("mean", "sum")}
        init_params, init_body, init_inputs = "beta=1.0", "self.beta = beta", str(param)
        elem = ("    d = tl.abs(p - t)\n"
                "    e = tl.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)")
        what = f"smooth-L1 term (beta {param})"
    else:
        param = rng.choice([1.0, 0.5, 2.0])
        forms = {r: [f"F.huber_loss(predictions, targets, reduction='{r}', delta=self.delta)"] for r in ("mean", "sum")}
        init_params, init_body, init_inputs = "delta=1.0", "self.delta = delta", str(param)
        elem = ("    d = tl.abs(p - t)\n"
                "    e = tl.where(d <= delta, 0.5 * d * d, delta * (d - 0.5 * delta))")
        what = f"Huber term (delta {param})"
    if kind in ("smooth_l1", "huber") and rng.random() < 0.5:
        forms = {r: [f.replace(f", reduction='{r}'", "") if r == "mean" else f for f in fs] for r, fs in forms.items()}
    body = f"return {rng.choice(forms[red])}"
    two_d = rng.random() < 0.7
    names = rng.choice([("batch_size", "dim"), ("N", "D"), ("batch", "features")]) if two_d else \
        (rng.choice(["n", "num_samples", "batch_size"]),)
    vals = (rng.choice([64, 128, 256, 1000]), rng.choice([64, 128, 512, 1024])) if two_d else \
        (rng.choice([4096, 10000, 65536, 100000]),)
    sizes = dict(zip(names, vals))
    shape = ", ".join(names)
    desc = f"the {'mean' if red == 'mean' else 'sum'} {what.split(' (')[0]} loss"
    src = problem(rng, desc=desc, forward_args=["predictions", "targets"], body=body, sizes=sizes,
                  inputs=[f"torch.randn({shape})", targets.format(shape=shape, size=f"({shape},)" if len(names) == 1 else f"({shape})")],
                  init_params=init_params, init_body=init_body, init_inputs=init_inputs)
    block = rng.choice([512, 1024, 2048])
    new_init = f"        {init_body}\n" if init_body else ""
    extra = {"smooth_l1": "beta", "huber": "delta"}.get(kind)
    cand = LOSS_CANDIDATE.format(kname="loss", elem=elem, block=block,
                                 extra_arg=f"{extra}, " if extra else "", extra_call=f"self.{extra}, " if extra else "",
                                 init_params=f", {init_params}" if init_params else "", init_body=new_init,
                                 scale="1.0 / n" if red == "mean" else "1.0")
    how = "times 1/n for the mean" if red == "mean" else "as is for the sum"
    plan = rng.choice([
        f"Two kernels: the first computes the {what} for {block} elements per program (masked lanes contribute 0) "
        f"and stores one partial sum each; the second, a single program, adds the partials in chunks of 1024 and "
        f"writes the scalar {how}.",
        f"Scalar loss as a two-stage reduction with no atomics: cdiv(n, {block}) programs each reduce their block's "
        f"{what} in fp32 to one partial; one finishing program sums the partials and stores the result {how}.",
        f"Fuse the elementwise {what} with the reduction: per-block partial sums (BLOCK={block}, tail masked and "
        f"zeroed), then one program sums them into the 0-d output {how}.",
    ])
    return Sample(f"loss-{idx:05d}", "loss", src, plan, cand)
