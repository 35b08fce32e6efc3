"""Problem sources: checks on the KernelBench format and rewriting of module-level size constants.

Size constants are module-level assignments of integer literals (or integer arithmetic, or tuples
or lists of them), e.g. ``batch_size = 16``, ``N = 2048 * 2`` or ``layer_sizes = [400, 800]``. The verifier rewrites them to shrink a
problem for the CPU interpreter and to perturb shapes (odd sizes) so hard-coded shapes fail.
Nothing here executes the problem: that happens only in the sandboxed reference worker.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

REQUIRED = ("Model", "get_inputs", "get_init_inputs")
# Names of constants that are structural, not sizes: changing them changes the problem itself.
_STRUCTURAL = re.compile(r"kernel|stride|pad|dilat|group|head|axis|^dim$|^dims?_?\d*$|eps|scale|p$", re.I)
MIN_SCALABLE = 8  # smaller ints (kernel sizes, dims, small channel counts) are left alone


# Value variants: one trial each at the small sizes, with other values than randn gives. Keys are the variants'
# labels, values what their inputs are, in words (the verdict says it where one fails).
STRESS_SCALE = 32.0  # a power of two: scaling is exact, so only what the kernel computes can differ
ARG_FACTOR = 1.5
VALUE_VARIANTS = {"scaled": f"floating inputs times {STRESS_SCALE:g}", "zeros": "all-zero floating inputs",
                  "args": f"float arguments of __init__ and forward times {ARG_FACTOR:g}",
                  "ints": "int and bool arguments of __init__ and forward changed (k to k+1 or k-1, a bool negated)"}
# Int arguments named like a dimension selector are never changed by the "ints" variant: the user's module is built
# and called with the problem's own value, and a kernel written for that one axis (a row softmax for dim=1, the usual
# KernelBench answer) is what was asked for; another axis is another problem. A factor, a count or a flag is not
# like that: a kernel that hard-codes it is right only by the problem's choice of value, so it is changed.
ARG_SELECTOR = re.compile(r"^(dims?|axis|axes)_?\d*$|_(dims?|axis)$", re.I)


class ProblemError(ValueError):
    """The problem source is not a usable KernelBench-format problem."""


class IntList(tuple):
    """A list constant's sizes: a tuple everywhere in the planner, written back as a list (the problem may
    concatenate or append to it)."""

    def __repr__(self) -> str:
        return repr(list(self))


@dataclass(frozen=True)
class SizeConstant:
    name: str
    value: int | tuple[int, ...]
    line: int

    @property
    def scalable(self) -> bool:
        vals = self.value if isinstance(self.value, tuple) else (self.value,)
        if _STRUCTURAL.search(self.name) and max(vals) < 64:
            return False
        return max(vals) >= MIN_SCALABLE


def _int_value(node: ast.AST) -> int | tuple[int, ...] | None:
    """Evaluate integer arithmetic on literals (no names, no calls)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _int_value(node.operand)
        return -v if isinstance(v, int) else None
    if isinstance(node, ast.BinOp):
        a, b = _int_value(node.left), _int_value(node.right)
        if not (isinstance(a, int) and isinstance(b, int)):
            return None
        ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
               ast.FloorDiv: lambda: a // b if b else None, ast.Pow: lambda: a ** b if 0 <= b < 64 else None,
               ast.LShift: lambda: a << b if 0 <= b < 64 else None}
        f = ops.get(type(node.op))
        return f() if f else None
    if isinstance(node, (ast.Tuple, ast.List)):
        vals = [_int_value(e) for e in node.elts]
        if vals and all(isinstance(v, int) for v in vals):
            return (IntList if isinstance(node, ast.List) else tuple)(vals)  # type: ignore[arg-type]
    return None


def parse_problem(src: str) -> ast.Module:
    """Parse and check the KernelBench shape of a problem; raise ProblemError with what is missing."""
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        raise ProblemError(f"problem has a syntax error at line {e.lineno}: {e.msg}") from None
    defined = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    defined |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    missing = [name for name in REQUIRED if name not in defined]
    if missing:
        raise ProblemError("problem does not define " + ", ".join(missing) +
                           " (a problem needs class Model(nn.Module), get_inputs() and get_init_inputs())")
    return tree


def _bindings(node: ast.AST) -> list[tuple[str, ast.expr]]:
    """(name, value expression) for each name a module-level statement binds to a value of its own:
    `a = 1`, `a = b = 1` (both to the same expression) and `d, h, w = 16, 32, 32` (element by element)."""
    if not isinstance(node, ast.Assign):
        return []
    if all(isinstance(t, ast.Name) for t in node.targets):
        return [(t.id, node.value) for t in node.targets]  # type: ignore[attr-defined]
    if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple) and isinstance(node.value, ast.Tuple)
            and len(node.targets[0].elts) == len(node.value.elts)
            and all(isinstance(t, ast.Name) for t in node.targets[0].elts)):
        return [(t.id, v) for t, v in zip(node.targets[0].elts, node.value.elts)]  # type: ignore[attr-defined]
    return []


def size_constants(src: str) -> list[SizeConstant]:
    """Module-level integer constants of a problem, in source order (`height = width = 64` and
    `height, width = 64, 64` give both names)."""
    out = []
    for node in ast.parse(src).body:
        for name, expr in _bindings(node):
            v = _int_value(expr)
            if v is not None:
                out.append(SizeConstant(name, v, node.lineno))
    return out


def with_constants(src: str, values: dict[str, int | tuple[int, ...]]) -> str:
    """Return `src` with the named module-level constants set to new values (line numbers kept).

    Only the value's own text is replaced, so `depth = 16; height = width = 64` keeps its other
    statements; a chained assignment takes the value of its first name given."""
    if not values:
        return src
    lines = src.splitlines(keepends=True)
    edits: dict[tuple[int, int], tuple[int, str]] = {}
    for node in ast.parse(src).body:
        for name, expr in _bindings(node):
            key = (expr.lineno - 1, expr.col_offset)
            if name not in values or key in edits:
                continue
            if expr.lineno != expr.end_lineno:
                raise ProblemError(f"constant {name} spans several lines; cannot rewrite it")
            edits[key] = (expr.end_col_offset, repr(values[name]))  # type: ignore[assignment]
    for (row, a), (b, text) in sorted(edits.items(), reverse=True):  # right to left: earlier offsets stay valid
        raw = lines[row].encode()  # ast offsets count UTF-8 bytes
        lines[row] = (raw[:a] + text.encode() + raw[b:]).decode()
    return "".join(lines)


def shrink(value: int | tuple[int, ...]) -> int | tuple[int, ...]:
    """Halve a size (each element of a tuple), never below MIN_SCALABLE // 2."""
    if isinstance(value, tuple):
        return type(value)(max(MIN_SCALABLE // 2, v // 2) if v >= MIN_SCALABLE else v for v in value)
    return max(MIN_SCALABLE // 2, value // 2)


def oddify(value: int | tuple[int, ...], step: int) -> int | tuple[int, ...]:
    """An odd size near `value` (step 0: next odd above, step 1: previous odd below, …)."""
    def one(v: int) -> int:
        if v < MIN_SCALABLE // 2:
            return v
        cands = [v + 1 if v % 2 == 0 else v + 2, v - 1 if v % 2 == 0 else v - 2, v + 3 if v % 2 == 0 else v + 4]
        return max(1, cands[step % len(cands)])
    return type(value)(one(v) for v in value) if isinstance(value, tuple) else one(value)


def rescale(value: int | tuple[int, ...], num: int, den: int) -> int | tuple[int, ...]:
    """A size times num / den (each element of a tuple), rounded down, never below 1; sizes under
    MIN_SCALABLE // 2 stay. Every size of a plan scaled by one common factor keeps the ratios between them
    (an output width that must equal a channel count, at twice the input's width) where halving the largest
    first, or making each size odd, breaks them."""
    def one(v: int) -> int:
        return v if v < MIN_SCALABLE // 2 else max(1, v * num // den)
    return type(value)(one(v) for v in value) if isinstance(value, tuple) else one(value)


def grow(value: int | tuple[int, ...]) -> int | tuple[int, ...]:
    """A size above `value` (each element of a tuple) for the "large" variant: odd, at least 3/2 of it, and past
    triton.next_power_of_2 of it, so a kernel whose one fixed block covers the problem's own size (BLOCK = 512 for
    320 columns, no loop) misses the end of a row. Sizes under MIN_SCALABLE // 2 stay."""
    def one(v: int) -> int:
        return v if v < MIN_SCALABLE // 2 else max((1 << (v - 1).bit_length()) + 1, (3 * v // 2) | 1)
    return type(value)(one(v) for v in value) if isinstance(value, tuple) else one(value)
