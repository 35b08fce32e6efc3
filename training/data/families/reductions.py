"""Reductions over any dim of a 3-D tensor: sum/mean/max/min (family `dim_reduce`) and argmax/argmin
(family `argreduce`). The tensor is viewed as (outer, R, inner); each program owns a block of output
positions and walks the reduced axis R in chunks."""
from __future__ import annotations

import random

from .common import HEADER, Sample, problem

REDUCE_CANDIDATE = HEADER + '''

@triton.jit
def {kname}(x_ptr, y_ptr, n_out, R, inner, BLOCK_P: tl.constexpr, BLOCK_R: tl.constexpr):
    p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    pmask = p < n_out
    base = (p // inner) * R * inner + p % inner
    rr = tl.arange(0, BLOCK_R)
{init}
    for r0 in range(0, R, BLOCK_R):
        r = r0 + rr
        mask = pmask[:, None] & (r[None, :] < R)
        v = tl.load(x_ptr + base[:, None] + r[None, :] * inner, mask=mask, other={other}).to(tl.float32)
{step}
    tl.store(y_ptr + p, {result}, mask=pmask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        x = x.contiguous()
        d = self.dim % x.dim()
        R = x.shape[d]
        inner = x.stride(d)
        y = torch.empty({out_shape}, device=x.device, dtype={out_dtype})
        n_out = x.numel() // R
        BLOCK_P, BLOCK_R = {bp}, {br}
        {kname}[(triton.cdiv(n_out, BLOCK_P),)](x, y, n_out, R, inner, BLOCK_P=BLOCK_P, BLOCK_R=BLOCK_R)
        return y
'''

# kind: (torch forms, accumulator init, padding, per-chunk step, stored result)
KINDS = {
    "sum": (("torch.sum(x, dim=self.dim{kd})", "x.sum(dim=self.dim{kd})"),
            "    acc = tl.zeros((BLOCK_P,), dtype=tl.float32)", "0.0",
            "        acc += tl.sum(v, axis=1)", "acc.to(y_ptr.dtype.element_ty)"),
    "mean": (("torch.mean(x, dim=self.dim{kd})", "x.mean(dim=self.dim{kd})"),
             "    acc = tl.zeros((BLOCK_P,), dtype=tl.float32)", "0.0",
             "        acc += tl.sum(v, axis=1)", "(acc / R).to(y_ptr.dtype.element_ty)"),
    "max": (("torch.amax(x, dim=self.dim{kd})", "torch.max(x, dim=self.dim{kd})[0]", "x.max(dim=self.dim{kd}).values"),
            "    acc = tl.full((BLOCK_P,), -float('inf'), tl.float32)", "-float('inf')",
            "        acc = tl.maximum(acc, tl.max(v, axis=1))", "acc.to(y_ptr.dtype.element_ty)"),
    "min": (("torch.amin(x, dim=self.dim{kd})", "torch.min(x, dim=self.dim{kd})[0]", "x.min(dim=self.dim{kd}).values"),
            "    acc = tl.full((BLOCK_P,), float('inf'), tl.float32)", "float('inf')",
            "        acc = tl.minimum(acc, tl.min(v, axis=1))", "acc.to(y_ptr.dtype.element_ty)"),
    "argmax": (("torch.argmax(x, dim=self.dim{kd})", "x.argmax(dim=self.dim{kd})"),
               "    best = tl.full((BLOCK_P,), -float('inf'), tl.float32)\n"
               "    best_i = tl.zeros((BLOCK_P,), dtype=tl.int64)", "-float('inf')",
               "        m = tl.max(v, axis=1)\n        i = tl.argmax(v, axis=1).to(tl.int64) + r0\n"
               "        take = m > best\n        best_i = tl.where(take, i, best_i)\n        best = tl.where(take, m, best)",
               "best_i"),
    "argmin": (("torch.argmin(x, dim=self.dim{kd})", "x.argmin(dim=self.dim{kd})"),
               "    best = tl.full((BLOCK_P,), float('inf'), tl.float32)\n"
               "    best_i = tl.zeros((BLOCK_P,), dtype=tl.int64)", "float('inf')",
               "        m = tl.min(v, axis=1)\n        i = tl.argmin(v, axis=1).to(tl.int64) + r0\n"
               "        take = m < best\n        best_i = tl.where(take, i, best_i)\n        best = tl.where(take, m, best)",
               "best_i"),
}


def _reduce(rng: random.Random, idx: int, kind: str) -> Sample:
    forms, init, other, step, result = KINDS[kind]
    arg = kind.startswith("arg")
    dim = rng.choice([1, 1, 1, 0, 2, -1]) if not arg else rng.choice([0, 1, 2, -1])
    keepdim = (not arg) and kind in ("sum", "mean") and rng.random() < 0.3
    kd = ", keepdim=True" if keepdim else ""
    body = f"return {rng.choice(forms).format(kd=kd)}"
    names = rng.choice([("batch_size", "dim1", "dim2"), ("B", "M", "N"), ("n", "rows", "cols"),
                        ("batch", "channels", "length")])
    vals = (rng.choice([4, 8, 16, 32]), rng.choice([64, 100, 128, 256, 333, 512]), rng.choice([64, 128, 255, 256, 500]))
    sizes = dict(zip(names, vals))
    desc = f"{kind} over dimension {dim}" + (" keeping the dimension" if keepdim else "")
    src = problem(rng, desc=desc, forward_args=["x"], body=body, sizes=sizes,
                  inputs=[f"torch.randn({', '.join(names)})"], init_params="dim", init_body="self.dim = dim",
                  init_inputs=str(dim))
    out_shape = "x.shape[:d] + (1,) + x.shape[d + 1:]" if keepdim else "x.shape[:d] + x.shape[d + 1:]"
    bp, br = rng.choice([(16, 64), (32, 32), (8, 128), (64, 16), (32, 64)])
    kname = "reduce_dim_kernel"
    cand = REDUCE_CANDIDATE.format(kname=kname, init=init, other=other, step=step, result=result,
                                   out_shape=out_shape, out_dtype="torch.int64" if arg else "x.dtype", bp=bp, br=br)
    padded = {"sum": "zero", "mean": "zero", "max": "-inf", "min": "+inf", "argmax": "-inf", "argmin": "+inf"}[kind]
    track = ("a running best value and its index (a later chunk wins only if strictly better, so the first "
             "occurrence is kept, as in torch)") if arg else f"a running {'sum' if kind in ('sum', 'mean') else kind} in fp32"
    finish = " divided by R at the end" if kind == "mean" else ""
    plan = rng.choice([
        f"View x as (outer, R, inner) with R the reduced dim and inner = x.stride(dim); each program owns {bp} output "
        f"positions and loops over R in chunks of {br}, masked loads padded with {padded}, keeping {track}{finish}.",
        f"One kernel, grid cdiv(numel / R, {bp}). Output position p reads x at (p // inner) * R * inner + p % inner + "
        f"r * inner; a [{bp} x {br}] tile per step, padding {padded} outside R; {track}{finish}.",
        f"{kind} over dim {dim} without a transpose: strided loads along the reduced axis (stride = inner), "
        f"{bp} outputs per program, {br} reduced elements per step with masks, {track}{finish}.",
    ])
    fam = "argreduce" if arg else "dim_reduce"
    return Sample(f"{'arg' if arg else 'red'}-{idx:05d}", fam, src, plan, cand)


def dim_reduce(rng: random.Random, idx: int) -> Sample:
    """sum / mean / max / min over a (mostly middle) dim of a 3-D tensor."""
    return _reduce(rng, idx, rng.choice(["sum", "mean", "max", "min"]))


def argreduce(rng: random.Random, idx: int) -> Sample:
    """argmax / argmin over a dim of a 3-D tensor (int64 output)."""
    return _reduce(rng, idx, rng.choice(["argmax", "argmin"]))
