"""Output comparison with dtype-aware tolerances (KernelBench's 1e-2 for fp32/fp16/bf16)."""
from __future__ import annotations

import torch

# (atol, rtol) by dtype. fp32 matches KernelBench so numbers compare with the literature; it also
# admits TF32 tensor-core matmuls, which Triton's tl.dot uses by default.
TOLERANCES = {torch.float64: (1e-6, 1e-6), torch.float32: (1e-2, 1e-2), torch.float16: (1e-2, 1e-2),
              torch.bfloat16: (2e-2, 2e-2)}


def _flatten(x) -> list:
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _flatten(v)]
    return [x]


def compare(ref, out, atol: float | None = None, rtol: float | None = None) -> tuple[bool, str, float, float]:
    """(ok, message, max_abs_err, max_rel_err) of a candidate output against the reference.

    `atol`/`rtol` override the dtype's default tolerances when given."""
    atol_o, rtol_o = atol, rtol
    refs, outs = _flatten(ref), _flatten(out)
    if len(refs) != len(outs):
        return False, f"forward returned {len(outs)} outputs, the reference {len(refs)}", float("inf"), float("inf")
    max_abs = max_rel = 0.0
    for i, (r, o) in enumerate(zip(refs, outs)):
        where = f"output {i}: " if len(refs) > 1 else ""
        if not isinstance(r, torch.Tensor):
            if r != o:
                return False, f"{where}expected {r!r}, got {o!r}", float("inf"), float("inf")
            continue
        if type(o) is not torch.Tensor:
            return False, f"{where}expected a tensor, got {type(o).__name__}", float("inf"), float("inf")
        if o.shape != r.shape:
            return False, f"{where}shape {list(o.shape)} != expected {list(r.shape)}", float("inf"), float("inf")
        if o.dtype != r.dtype:
            return False, f"{where}dtype {o.dtype} != expected {r.dtype}", float("inf"), float("inf")
        if r.numel() == 0:
            continue
        d_atol, d_rtol = TOLERANCES.get(r.dtype, (0.0, 0.0))
        atol, rtol = (d_atol if atol_o is None else atol_o), (d_rtol if rtol_o is None else rtol_o)
        rf, of = r.double(), o.double()
        nan_r, nan_o = torch.isnan(rf), torch.isnan(of)
        if not torch.equal(nan_r, nan_o):
            return False, f"{where}NaN in different places ({int(nan_o.sum())} vs {int(nan_r.sum())} expected)", \
                float("inf"), float("inf")
        fin = ~nan_r
        diff = (rf - of).abs()[fin]
        inf_mismatch = torch.isinf(rf) | torch.isinf(of)
        if bool((inf_mismatch & fin & (rf != of)).any()):
            return False, f"{where}infinities differ", float("inf"), float("inf")
        diff = torch.where(torch.isinf(diff), torch.zeros_like(diff), diff)
        if diff.numel():
            a = float(diff.max())
            rel = float((diff / rf.abs()[fin].clamp_min(1e-12)).max())
            max_abs, max_rel = max(max_abs, a), max(max_rel, min(rel, 1e30))
            bad = diff > atol + rtol * rf.abs()[fin]
            if bool(bad.any()):
                n = int(bad.sum())
                return False, (f"{where}{n} of {r.numel()} elements differ beyond atol={atol}, rtol={rtol} "
                               f"(max abs err {a:.3g})"), max_abs, max_rel
    return True, "", max_abs, max_rel
