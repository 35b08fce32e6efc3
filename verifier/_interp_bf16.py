"""bfloat16 arithmetic for Triton's interpreter (CPU verification), installed by the candidate worker.

The interpreter keeps bfloat16 values as their uint16 bit patterns (numpy has no bfloat16) and converts them only in
casts to and from float32; every other operation ran numpy on the bit patterns as integers: x * x of bf16 tiles gave
1e38, a comparison of negative values went the wrong way, tl.max and tl.dot read integers. A correct kernel that
computes in bf16 (an idiomatic `y * w` on bf16 loads) was rejected on a CPU and passed on a GPU. Here each such
operation is done in float32 and rounded to bfloat16 (to nearest, ties to even, as the GPU rounds), which is what
the GPU computes up to the double rounding of a sum. Casts from float32 to bfloat16 round to nearest as well (the
interpreter truncated). Trusted code: it runs only on the interpreter's own numpy arrays.
"""
from __future__ import annotations

import numpy as np

_COMPARISONS = (np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal)


def to_f32(bits) -> np.ndarray:
    """bfloat16 bit patterns (uint16) to float32 values (exact)."""
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def to_bf16(values) -> np.ndarray:
    """float values to bfloat16 bit patterns, rounded to nearest even; NaN stays NaN, overflow goes to infinity."""
    f = np.ascontiguousarray(np.asarray(values, dtype=np.float32))
    bits = f.view(np.uint32)
    rounded = ((bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16))
    nan = (bits >> np.uint32(16)).astype(np.uint16) | np.uint16(0x0040)  # quiet NaN, sign kept
    return np.where(np.isnan(f), nan, rounded.astype(np.uint16)).astype(np.uint16)


def install() -> None:
    """Patch the interpreter's builder and its reductions and scans (idempotent)."""
    from triton import language as tl
    from triton.runtime import interpreter as I

    if getattr(I, "_tritonrl_bf16", False):
        return
    I._tritonrl_bf16 = True
    B = I.InterpreterBuilder
    TH = I.TensorHandle
    bf16 = tl.bfloat16

    def is_bf16(h) -> bool:
        return getattr(getattr(h, "dtype", None), "scalar", None) == bf16

    def f32(h):
        return TH(to_f32(h.data), tl.float32) if is_bf16(h) else h

    binary_op, unary_op, ternary_op, cast_impl = B.binary_op, B.unary_op, B.ternary_op, B.cast_impl
    create_fma, create_erf, create_rsqrt, create_dot = B.create_fma, B.create_erf, B.create_rsqrt, B.create_dot

    def p_binary_op(self, lhs, rhs, op):
        if not (is_bf16(lhs) or is_bf16(rhs)):
            return binary_op(self, lhs, rhs, op)
        out = op(f32(lhs).data, f32(rhs).data)
        if op in _COMPARISONS or out.dtype == np.bool_:
            return TH(np.asarray(out).astype(np.uint16), bf16)  # as the interpreter keeps a comparison of bf16
        return TH(to_bf16(out), bf16)

    def p_unary_op(self, arg, op):
        if not is_bf16(arg):
            return unary_op(self, arg, op)
        return TH(to_bf16(op(to_f32(arg.data))), bf16)

    def p_ternary_op(self, lhs, rhs, other, op):
        if not any(is_bf16(h) for h in (lhs, rhs, other)):
            return ternary_op(self, lhs, rhs, other, op)
        out = op(f32(lhs).data, f32(rhs).data, f32(other).data)
        return TH(to_bf16(out), bf16) if is_bf16(other) else TH(out, other.dtype.scalar)

    def p_fma(self, x, y, z):
        if not any(is_bf16(h) for h in (x, y, z)):
            return create_fma(self, x, y, z)
        out = np.add(np.multiply(f32(x).data, f32(y).data, dtype=np.float64), f32(z).data, dtype=np.float64)
        return TH(to_bf16(out), bf16)

    def p_erf(self, arg):
        return TH(to_bf16(create_erf(self, f32(arg)).data), bf16) if is_bf16(arg) else create_erf(self, arg)

    def p_rsqrt(self, arg):
        return TH(to_bf16(create_rsqrt(self, f32(arg)).data), bf16) if is_bf16(arg) else create_rsqrt(self, arg)

    def p_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        if not any(is_bf16(h) for h in (a, b, d)):
            return create_dot(self, a, b, d, input_precision, max_num_imprecise_acc)
        out = create_dot(self, f32(a), f32(b), f32(d), input_precision, max_num_imprecise_acc)
        return TH(to_bf16(out.data), bf16) if is_bf16(d) else out

    def p_cast_impl(self, src, dst_type):
        src_bf16, dst_bf16 = is_bf16(src), dst_type.scalar == bf16
        if src_bf16 == dst_bf16:
            return cast_impl(self, src, dst_type)
        if src_bf16:  # to float32 exactly, then on as from float32
            return cast_impl(self, f32(src), dst_type) if dst_type.scalar != tl.float32 else f32(src)
        values = src.data if src.dtype.scalar == tl.float32 else cast_impl(self, src, tl.float32).data
        return TH(to_bf16(values), bf16)

    B.binary_op, B.unary_op, B.ternary_op, B.cast_impl = p_binary_op, p_unary_op, p_ternary_op, p_cast_impl
    B.create_fma, B.create_erf, B.create_rsqrt, B.create_dot = p_fma, p_erf, p_rsqrt, p_dot
    # the builder's lambdas (create_fadd = lambda self, ...: self.binary_op(...)) find the patched methods by name

    def elem(t):
        return getattr(t.dtype, "scalar", t.dtype)

    R, S = I.ReduceOps, I.ScanOps
    r_sum, r_min_max, s_cumsum, s_cumprod = R.sum, R.min_max, S.cumsum, S.cumprod

    def p_sum(self, input):
        if elem(input) != bf16:
            return r_sum(self, input)
        total = np.sum(to_f32(input.handle.data), axis=self.axis, keepdims=self.keep_dims)
        return self.to_tensor(to_bf16(total), input.dtype)

    def p_min_max(self, input, val_reduce_op, idx_reduce_op=None):
        one = input[0] if isinstance(input, tuple) else input
        if elem(one) != bf16:
            return r_min_max(self, input, val_reduce_op, idx_reduce_op)
        values = to_f32(one.handle.data)
        val = idx = None
        if val_reduce_op:
            val = self.to_tensor(to_bf16(val_reduce_op(values, axis=self.axis, keepdims=self.keep_dims)), one.dtype)
        if idx_reduce_op:
            idx = self.to_tensor(idx_reduce_op(values, axis=self.axis, keepdims=self.keep_dims), tl.int32)
        if val is not None and idx is not None:
            return val, idx
        return val if val is not None else idx

    def scan(orig, fn):
        def p_scan(self, input):
            if elem(input) != bf16:
                return orig(self, input)
            return [self.to_tensor(to_bf16(fn(to_f32(input.handle.data), axis=self.axis)), dtype=input.dtype)]
        return p_scan

    R.sum, R.min_max = p_sum, p_min_max
    S.cumsum, S.cumprod = scan(s_cumsum, np.cumsum), scan(s_cumprod, np.cumprod)


def saturate_to_int(values, np_dtype) -> np.ndarray:
    """Float values converted to an integer dtype as a GPU does: truncated toward zero, clamped to the type's range,
    NaN to 0 (numpy wraps out-of-range values: 3e9 became INT_MIN, which let a kernel tell the interpreter from a
    GPU by arithmetic alone, red-teaming 2026-12-06)."""
    info = np.iinfo(np_dtype)
    f = np.asarray(values, dtype=np.float64)
    f = np.where(np.isnan(f), 0.0, np.trunc(f))
    return np.clip(f, info.min, info.max).astype(np_dtype)


def install_saturating_casts() -> None:
    """Patch the interpreter's float-to-integer casts to saturate (idempotent)."""
    from triton.runtime import interpreter as I

    if getattr(I, "_tritonrl_sat", False):
        return
    I._tritonrl_sat = True
    B = I.InterpreterBuilder
    fp_to_si, fp_to_ui = B.create_fp_to_si, B.create_fp_to_ui

    def sat(orig):
        def cast(self, src, dst_type):
            out = orig(self, src, dst_type)  # bf16 sources are converted to float by the bf16 patches first
            data = np.asarray(out.data)
            if not np.issubdtype(data.dtype, np.integer):
                return out
            vals = to_f32(src.data) if getattr(src.dtype, "scalar", None) is not None and \
                str(src.dtype.scalar) == "bf16" else src.data
            return I.TensorHandle(saturate_to_int(vals, data.dtype), out.dtype)
        return cast

    B.create_fp_to_si, B.create_fp_to_ui = sat(fp_to_si), sat(fp_to_ui)
