"""libdevice for Triton's interpreter (CPU verification), installed by the candidate worker.

Triton 3.9's interpreter runs no libdevice function: `triton.language.extra.libdevice` is a module of stubs (each body
is `...`) that the GPU compiler swaps for the backend's library, so under the interpreter `libdevice.erf(x)` returned
None (a kernel then failed with "unsupported operand type(s) for +: 'float' and 'NoneType'"), and the CUDA module's
functions (`triton.language.extra.cuda.libdevice`) reach `create_extern_elementwise`, which the interpreter refuses
("extern_elementwise not supported in interpreter mode"). A correct GELU written with libdevice.erf, or a tanh with
libdevice.tanh, was rejected on a CPU and ran on a GPU.

Here both modules' functions run through the CUDA module's type dispatch (the same argument and result types as on a
GPU) and the interpreter's builder computes each `__nv_*` symbol with numpy (math for erf, erfc, lgamma, tgamma). A
symbol without a numpy counterpart raises an error that names it. Trusted code: it runs only on the interpreter's own
numpy arrays, never torch (the candidate worker logs torch ops inside a launch).
"""
from __future__ import annotations

import math
import re

import numpy as np


def _vec(f):
    v = np.vectorize(f, otypes=[np.float64])
    return lambda x: v(x)


def _rint(x):
    return np.rint(x)


def _frexp_exp(x):
    return np.frexp(x)[1]


def _erfinv(y):
    # Newton's method on erf from a rational first guess (Giles' approximation); double precision is reached quickly
    y = np.asarray(y, dtype=np.float64)
    w = -np.log(np.clip((1.0 - y) * (1.0 + y), 1e-300, None))
    x = np.where(w < 5.0, _giles_small(w - 2.5), _giles_large(np.sqrt(w) - 3.0)) * y
    erf = np.vectorize(math.erf, otypes=[np.float64])
    for _ in range(3):
        x = x - (erf(x) - y) / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
    return np.where(np.abs(y) == 1.0, np.copysign(np.inf, y), np.where(np.abs(y) > 1.0, np.nan, x))


def _giles_small(w):
    p = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
              0.246640727, 1.50140941):
        p = c + p * w
    return p


def _giles_large(w):
    p = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
              1.00167406, 2.83297682):
        p = c + p * w
    return p


# libdevice name (without __nv_ and the f of its float32 variant) -> numpy on the arguments' arrays
_OPS = {
    "abs": np.abs, "fabs": np.abs, "llabs": np.abs,
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x).astype(x.dtype), "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "cbrt": np.cbrt, "rcbrt": lambda x: 1.0 / np.cbrt(x),
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "sinpi": lambda x: np.sin(np.pi * x), "cospi": lambda x: np.cos(np.pi * x),
    "atan2": np.arctan2, "hypot": np.hypot, "pow": np.power, "powi": np.power, "fmod": np.fmod,
    "remainder": lambda x, y: x - y * np.rint(x / y), "copysign": np.copysign,
    "fmax": np.fmax, "fmin": np.fmin, "max": np.maximum, "min": np.minimum, "fdim": lambda x, y: np.maximum(x - y, 0),
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    "rint": _rint, "nearbyint": _rint, "llrint": _rint, "llround": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    "erf": _vec(math.erf), "erfc": _vec(math.erfc), "lgamma": _vec(math.lgamma), "tgamma": _vec(math.gamma),
    "erfinv": _erfinv, "erfcinv": lambda x: _erfinv(1.0 - x),
    "fma": lambda x, y, z: np.add(np.multiply(x, y, dtype=np.float64), z, dtype=np.float64),
    "saturate": lambda x: np.clip(x, 0.0, 1.0), "saturatef": lambda x: np.clip(x, 0.0, 1.0),
    "isinf": lambda x: np.isinf(x), "isnan": lambda x: np.isnan(x), "isfinited": lambda x: np.isfinite(x),
    "finitef": lambda x: np.isfinite(x), "signbit": lambda x: np.signbit(x),
    "ldexp": lambda x, e: np.ldexp(x, e), "scalbn": lambda x, e: np.ldexp(x, e), "ilogb": lambda x: _frexp_exp(x) - 1,
    "logb": lambda x: (_frexp_exp(x) - 1).astype(np.float64), "nextafter": np.nextafter,
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "fast_divide": np.true_divide,
    "rcp": lambda x: 1.0 / x, "sqrt_rn": np.sqrt, "fast_exp": np.exp, "fast_log": np.log, "fast_tanh": np.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)), "j0": None, "j1": None, "y0": None, "y1": None,
}
_OPS.update({
    "fdivide": np.true_divide, "rhypot": lambda x, y: 1.0 / np.hypot(x, y),
    "norm3d": lambda a, b, c: np.sqrt(a * a + b * b + c * c), "rnorm3d": lambda a, b, c: 1.0 / np.sqrt(a * a + b * b + c * c),
    "norm4d": lambda a, b, c, d: np.sqrt(a * a + b * b + c * c + d * d),
    "rnorm4d": lambda a, b, c, d: 1.0 / np.sqrt(a * a + b * b + c * c + d * d),
    "normcdf": lambda x: 0.5 * _vec(math.erfc)(-np.asarray(x, dtype=np.float64) / math.sqrt(2.0)),
    "normcdfinv": lambda p: math.sqrt(2.0) * _erfinv(2.0 * np.asarray(p, dtype=np.float64) - 1.0),
    "erfcx": _vec(lambda x: math.exp(x * x) * math.erfc(x) if x < 25.0 else 1.0 / (x * math.sqrt(math.pi))),
    "cyl_bessel_i0": np.i0,
})
_ROUNDING = ("_rn", "_rz", "_rd", "_ru")


def _op(symbol: str):
    """The numpy function for a libdevice symbol (`__nv_erff` -> erf, `__nv_fadd_rn` -> add, `__nv_isinfd` -> isinf),
    or None."""
    name = symbol[len("__nv_"):] if symbol.startswith("__nv_") else symbol
    conv = re.fullmatch(r"(double|float|int|uint|ll|ull)2(double|float|int|uint|ll|ull)_(r[nzdu])", name)
    if conv:  # a conversion: to an integer rounded as its mode says, to a float as numpy rounds (to nearest)
        return {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}[conv.group(3)] if conv.group(2) in (
            "int", "uint", "ll", "ull") else (lambda x: x)
    for r in _ROUNDING:
        if name.endswith(r):
            name = name[:-len(r)]
    if name.startswith("fast_"):
        name = name[len("fast_"):]
    tries = [name]
    if name[-1:] in ("f", "d"):
        tries.append(name[:-1])  # the float32 / float64 variant: erff, isinfd, fmaf
    if name[:1] in ("f", "d"):
        tries += [name[1:], name[1:-1]]  # fadd, dsqrt, frcp, frsqrt
    for t in tries:
        if _OPS.get(t) is not None:
            return _OPS[t]
    return None


def install() -> None:
    """Make libdevice's functions run under the interpreter (idempotent)."""
    import triton.language.extra.libdevice as generic
    from triton.language.extra.cuda import libdevice as cuda
    from triton.runtime import interpreter as I

    if getattr(I, "_tritonrl_libdevice", False):
        return
    I._tritonrl_libdevice = True

    def create_extern_elementwise(self, libName, libPath, symbol, argList, retType, isPure):
        scalar = getattr(retType, "scalar", retType)
        if re.fullmatch(r"__nv_(float|double|int|uint|longlong)_as_(float|double|int|uint|longlong)", symbol):
            a = argList[0]  # a bitcast: the same bits read as the result's type
            data = np.asarray(a.data if isinstance(a, I.TensorHandle) else a)
            return I.TensorHandle(data.view(I._get_np_dtype(scalar)), scalar)
        fn = _op(symbol)
        if fn is None:
            raise NotImplementedError(f"libdevice function {symbol} is not available in the CPU verifier's Triton "
                                      "interpreter (its numpy counterpart is missing)")
        arrays = [np.asarray(a.data) if isinstance(a, I.TensorHandle) else np.asarray(a) for a in argList]
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*arrays))
        return I.TensorHandle(out.astype(I._get_np_dtype(scalar)), scalar)

    I.InterpreterBuilder.create_extern_elementwise = create_extern_elementwise

    def wrap(f):
        def run(*args, **kwargs):
            kwargs.pop("_semantic", None)
            return f(*args, _semantic=I.interpreter_semantic, **kwargs)
        run.__name__ = getattr(f, "__name__", "libdevice")
        run.__doc__ = getattr(f, "__doc__", None)
        return run

    for name in dir(cuda):
        f = getattr(cuda, name)
        if callable(f) and not name.startswith("_") and getattr(f, "__module__", "") == cuda.__name__:
            w = wrap(f)
            setattr(cuda, name, w)
            if hasattr(generic, name):
                setattr(generic, name, w)
