"""Output comparison with dtype-aware tolerances (KernelBench's 1e-2 for fp32/fp16/bf16).

Compares in chunks so KernelBench-sized outputs (billions of elements) need little extra memory.
"""
from __future__ import annotations

import torch

# (atol, rtol) by dtype. fp32 matches KernelBench so numbers compare with the literature; it also
# admits TF32 tensor-core matmuls, which Triton's tl.dot uses by default.
TOLERANCES = {torch.float64: (1e-6, 1e-6), torch.float32: (1e-2, 1e-2), torch.float16: (1e-2, 1e-2),
              torch.bfloat16: (2e-2, 2e-2), torch.complex128: (1e-6, 1e-6), torch.complex64: (1e-2, 1e-2)}
CHUNK = 1 << 24
INF = float("inf")
# containers of outputs, by exact type: plain lists and tuples, and torch's named tuples (torch.return_types.max, …)
CONTAINERS = (list, tuple) + tuple(v for v in vars(torch.return_types).values()
                                    if isinstance(v, type) and issubclass(v, tuple))


KEY_TYPES = (str, int)  # keys of an output dict, by exact type: sorting them runs no code of the candidate's


def _plain_dict(x) -> bool:
    """Whether `x` is an output dict: exactly a dict, its keys exactly str or int (a module returning
    {"logits": ..., "loss": ...}); its values are compared key by key, whatever order they were inserted in."""
    return type(x) is dict and all(type(k) in KEY_TYPES for k in dict.keys(x))


def _sorted_keys(x: dict) -> list:
    return sorted(dict.keys(x), key=lambda k: (type(k) is str, k))


def _flatten(x, keys: list | None = None) -> list:
    """The outputs in `x`, in order; each dict's sorted keys are appended to `keys` as the walk meets them."""
    # by type, not isinstance (which asks the object's own __class__): only plain lists and tuples (and torch's
    # named tuples) and plain dicts are containers; anything else is one output, and not a tensor
    if type(x) in CONTAINERS:
        return [t for v in x for t in _flatten(v, keys)]
    if _plain_dict(x):
        ks = _sorted_keys(x)
        if keys is not None:
            keys.append(ks)
        return [t for k in ks for t in _flatten(dict.__getitem__(x, k), keys)]
    return [x]


def _what(x) -> str:
    """An output in words, for a message."""
    if type(x) is torch.Tensor:
        return f"a tensor of shape {list(x.shape)}"
    if type(x) in (int, float, bool, complex, str, type(None)):
        return f"{type(x).__name__} {x!r}"
    return "an object that is not a tensor"  # its type's name or repr could run the candidate's code


def _largest(rf: torch.Tensor, work: torch.dtype) -> float:
    """The largest finite magnitude among the expected values (0.0 when there is none), chunk by chunk."""
    big = 0.0
    for s in range(0, rf.numel(), CHUNK):
        a = rf[s:s + CHUNK].to(work).abs()
        a = a[torch.isfinite(a)]
        if a.numel():
            big = max(big, float(a.max()))
    return big


def effective_atol(r: torch.Tensor, atol: float, rtol: float) -> float:
    """The absolute tolerance for expected values `r`: `atol`, but never more than rtol times their largest magnitude
    (and never less than atol * 1e-6, nor than two steps of the dtype's subnormal values). An absolute tolerance is
    for values near zero in an output of ordinary size; where every expected value is small (softmax over 393,216 columns: about 2.5e-6 each), atol = 1e-2 passed any
    answer at all, a kernel that wrote 1/n_cols, or zeros, without reading its input (softmax_wide__uniform_rows).
    With rtol = 0 (a caller's pure absolute tolerance) `atol` stays as given."""
    if rtol <= 0 or not (r.is_floating_point() or r.is_complex()) or r.numel() == 0:
        return atol
    if r.is_complex():
        r = torch.view_as_real(r.resolve_conj())
    work = torch.float64 if r.dtype == torch.float64 else torch.float32
    fi = torch.finfo(r.dtype)
    floor = max(atol * 1e-6, 2 * fi.smallest_normal * fi.eps)  # and two steps of the dtype's subnormals (fp16: 1.2e-7)
    return min(atol, max(rtol * _largest(r.reshape(-1), work), floor))


def _compare_tensor(r: torch.Tensor, o: torch.Tensor, atol: float, rtol: float) -> tuple[int, str, float, float]:
    """(elements out of tolerance, what else is wrong, max abs err, max rel err), chunk by chunk.

    Integers (and booleans) are compared exactly in their own dtype: through float32, int64 values past 2**24 that
    differ by a few compared equal. Complex values are compared as their real and imaginary parts: cast to a real
    dtype, the imaginary part was dropped. `atol` is used as given (callers pass `effective_atol`)."""
    if r.is_complex():
        r, o = torch.view_as_real(r.resolve_conj()), torch.view_as_real(o.resolve_conj())
    work = torch.float64 if r.dtype == torch.float64 else torch.float32
    rf, of = r.reshape(-1), o.reshape(-1)
    bad = 0
    max_abs = max_rel = 0.0
    for s in range(0, rf.numel(), CHUNK):
        if not r.is_floating_point():
            a, b = rf[s:s + CHUNK], of[s:s + CHUNK]
            n = int((a != b).sum())
            bad += n
            if n:
                max_abs = max(max_abs, float((a.double() - b.double()).abs().max()))
            continue
        a, b = rf[s:s + CHUNK].to(work), of[s:s + CHUNK].to(work)
        na, nb = torch.isnan(a), torch.isnan(b)
        if not torch.equal(na, nb):
            return bad, f"NaN in different places ({int(nb.sum())} vs {int(na.sum())} expected in a chunk)", INF, INF
        same = (a == b) | na  # equal values, incl. equal infinities and matching NaNs
        diff = torch.where(same, torch.zeros_like(a), (a - b).abs())
        if bool(torch.isinf(diff).any() | torch.isnan(diff).any()):
            return bad, "infinities differ", INF, INF
        tol = atol + rtol * a.abs()
        bad += int((diff > tol).sum())
        if diff.numel():
            max_abs = max(max_abs, float(diff.max()))
            max_rel = max(max_rel, float((diff / a.abs().clamp_min(1e-12)).max()))
    return bad, "", max_abs, max_rel


def compare(ref, out, atol: float | None = None, rtol: float | None = None) -> tuple[bool, str, float, float]:
    """(ok, message, max_abs_err, max_rel_err) of a candidate output against the reference.

    `atol`/`rtol` override the dtype's default tolerances when given."""
    ref_keys, out_keys = [], []
    refs, outs = _flatten(ref, ref_keys), _flatten(out, out_keys)
    if ref_keys != out_keys:
        return False, f"forward returned dict keys {out_keys}, the reference {ref_keys}", INF, INF
    if len(refs) != len(outs):
        return False, f"forward returned {len(outs)} outputs, the reference {len(refs)}", INF, INF
    max_abs = max_rel = 0.0
    for i, (r, o) in enumerate(zip(refs, outs)):
        where = f"output {i}: " if len(refs) > 1 else ""
        if not isinstance(r, torch.Tensor):
            # a Python number, None, ... compared by exact type first: `r != o` against a tensor is a tensor, and
            # a one-element tensor that happened to equal the number passed
            if type(o) is not type(r) or r != o:
                return False, f"{where}expected {_what(r)}, got {_what(o)}", INF, INF
            continue
        if type(o) is not torch.Tensor:
            return False, f"{where}expected a tensor, got {type(o).__name__}", INF, INF
        if o.layout != torch.strided or o.device.type != r.device.type:
            # a meta tensor (no data), a sparse one: compare's own ops raised on them, and the exception ended the whole
            # batch's verification (every other candidate of the problem went without a verdict)
            return False, (f"{where}a {str(o.layout).replace('torch.', '')} tensor on '{o.device.type}', not a dense "
                           "tensor holding the values"), INF, INF
        if o.shape != r.shape:
            return False, f"{where}shape {list(o.shape)} != expected {list(r.shape)}", INF, INF
        if o.dtype != r.dtype:
            return False, f"{where}dtype {o.dtype} != expected {r.dtype}", INF, INF
        d_atol, d_rtol = TOLERANCES.get(r.dtype, (0.0, 0.0))
        a_tol, r_tol = (d_atol if atol is None else atol), (d_rtol if rtol is None else rtol)
        given = a_tol
        a_tol = effective_atol(r, a_tol, r_tol)
        bad, what, a, rel = _compare_tensor(r, o, a_tol, r_tol)
        max_abs, max_rel = max(max_abs, a), max(max_rel, min(rel, 1e30))
        if what:
            return False, f"{where}{what}", max_abs, max_rel
        if bad:
            capped = "" if a_tol == given else (f" (atol {given} capped at rtol x the largest expected magnitude: "
                                                 "every expected value is small)")
            return False, (f"{where}{bad} of {r.numel()} elements differ beyond atol={a_tol:.3g}, rtol={r_tol} "
                           f"(max abs err {a:.3g}){capped}"), max_abs, max_rel
    return True, "", max_abs, max_rel
