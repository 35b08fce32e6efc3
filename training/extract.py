"""From a user's file and a class name to a self-contained KernelBench-format problem.

The problem holds the selected class plus what it needs from the file — imports, helper
functions, other classes, constants — and nothing else, so it loads in a fresh interpreter.
Inputs come from `get_inputs_<Class>()` / `get_init_inputs_<Class>()` or the file's plain
`get_inputs()` / `get_init_inputs()`; when there are none, `NeedsInputs` says exactly what to add,
with a stub to paste. The file may have syntax errors elsewhere: top-level statements are parsed
one by one, and only a broken statement the class needs is an error.
"""
from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass

_TOP = re.compile(r"^[A-Za-z_@]")
_CONTINUATION = re.compile(r"^(else|elif|except|finally)\b")
_STRONG = re.compile(r"^(def|class|async\s+def|import|from|if|for|while|with|try)\b|^@")
_BUILTINS = set(dir(builtins))


class ExtractError(ValueError):
    """The class cannot be turned into a problem; the message says why (shown to the user as is)."""


class NeedsInputs(ExtractError):
    """The file has no inputs for the class; `stub` is module-level code the user can paste."""

    def __init__(self, message: str, stub: str):
        super().__init__(message)
        self.stub = stub


@dataclass
class _Chunk:
    start: int          # 1-based first line
    src: str
    tree: ast.Module | None
    error: str = ""

    @property
    def defines(self) -> set[str]:
        out: set[str] = set()
        for node in self.tree.body if self.tree else []:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                out |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                out |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        return out

    @property
    def uses(self) -> set[str]:
        if not self.tree:
            return set()
        return {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}

    @property
    def is_import(self) -> bool:
        return bool(self.tree and self.tree.body and all(isinstance(n, (ast.Import, ast.ImportFrom))
                                                          for n in self.tree.body))

    @property
    def is_main_guard(self) -> bool:
        return bool(self.tree and self.tree.body and isinstance(self.tree.body[0], ast.If)
                    and "__name__" in ast.unparse(self.tree.body[0].test))


def _starts(lines: list[str], begin: int = 0, past: int | None = None) -> list[int]:
    """0-based first lines of top-level statements, scanning from `begin` (0 or a `_sync_point`);
    with `past`, stop at the first start after line `past`."""
    starts, pending_decorator = [], False
    depth = 0  # open brackets: an identifier at column 0 inside (...) continues a statement
    for i in range(begin, len(lines)):
        line = lines[i]
        strong = bool(_STRONG.match(line))  # a keyword at column 0 always starts a statement
        if strong:
            depth = 0
        if (strong or (depth == 0 and _TOP.match(line))) and not _CONTINUATION.match(line) and not pending_decorator:
            starts.append(i)
            if past is not None and i > past:
                break
        pending_decorator = (depth == 0 and line.startswith("@")) or (pending_decorator and not line.strip())
        code = line.split("#", 1)[0]
        depth = max(0, depth + sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}"))
    if not starts or starts[0] != begin:
        starts.insert(0, begin)
    return starts


def _sync_point(lines: list[str], i: int) -> int:
    """The last line at or before `i` from which `_starts` scans exactly as from the top of the file:
    a keyword line (it resets the bracket depth and always starts a statement) not under a decorator."""
    for j in range(min(i, len(lines) - 1), 0, -1):
        if not _STRONG.match(lines[j]):
            continue
        k = j - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        if k < 0 or not lines[k].startswith("@"):
            return j
    return 0


def _parse(lines: list[str], a: int, b: int) -> _Chunk:
    src = "".join(lines[a:b])
    try:
        return _Chunk(a + 1, src, ast.parse(src))
    except SyntaxError as e:
        return _Chunk(a + 1, src, None, f"line {a + (e.lineno or 1)}: {e.msg}")


def _chunks(source: str) -> list[_Chunk]:
    """Top-level statements, each parsed on its own (decorators stay with their definition)."""
    lines = source.splitlines(keepends=True)
    starts = _starts(lines)
    return [_parse(lines, a, b) for a, b in zip(starts, starts[1:] + [len(lines)])]


def _signature(node: ast.ClassDef, method: str) -> list[str]:
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == method:
            return [a.arg for a in item.args.args[1:]]
    return []


def _module_classes(chunks: list[_Chunk], names: set[str] | None = None) -> list[tuple[str, int, int]]:
    """Classes with "Module" in a base; with `names`, instead the classes deriving from one of `names`."""
    out = []
    for ch in chunks:
        for node in ch.tree.body if ch.tree else []:
            if not isinstance(node, ast.ClassDef):
                continue
            if (any("Module" in ast.unparse(b) for b in node.bases) if names is None else
                    node.name not in names and any(isinstance(b, ast.Name) and b.id in names for b in node.bases)):
                out.append((node.name, ch.start + node.lineno - 1, ch.start + node.end_lineno - 1))
    return out


def modules_in(source: str, within: tuple[int, int] | None = None) -> list[tuple[str, int, int]]:
    """(class name, first line, last line) of every top-level class that looks like an nn.Module.

    With `within` = (first, last) (1-based lines), only the classes overlapping those lines, found by
    parsing only the statements there (cheap on a large file; the same answer as filtering the full list).
    """
    if within is not None:
        lines = source.splitlines(keepends=True)
        first, last = max(1, within[0]), max(within)
        begin = _sync_point(lines, first - 1)
        starts = _starts(lines, begin, past=last - 1)
        spans = [(a, b) for a, b in zip(starts, starts[1:] + [len(lines)]) if a <= last - 1 and b > first - 1]
        near = [_parse(lines, a, b) for a, b in spans]
        subclass = any(isinstance(n, ast.ClassDef) and any(isinstance(b, ast.Name) for b in n.bases)
                       and not any("Module" in ast.unparse(b) for b in n.bases)
                       for ch in near for n in (ch.tree.body if ch.tree else []))
        found = modules_in(source) if subclass else _module_classes(near)  # subclasses need the whole file
        return [m for m in found if m[2] >= first and m[1] <= last]
    chunks = _chunks(source)
    out = _module_classes(chunks)
    out += _module_classes(chunks, {n for n, _, _ in out})  # subclasses of classes found above count too
    return sorted(out, key=lambda t: t[1])


def input_stub(cls_name: str, init_args: list[str], forward_args: list[str]) -> str:
    """Module-level code for the user to paste and edit: example inputs for `cls_name`."""
    fwd = "\n".join(f"        torch.randn(8, 64),  # {a}: edit to a realistic shape and dtype" for a in forward_args)
    init = "\n".join(f"        ...,  # {a}" for a in init_args)
    return (f"def get_inputs_{cls_name}():\n    \"\"\"Example inputs for {cls_name}.forward.\"\"\"\n"
            f"    return [\n{fwd or '        # forward takes no arguments'}\n    ]\n\n\n"
            f"def get_init_inputs_{cls_name}():\n    \"\"\"Constructor arguments for {cls_name}(...).\"\"\"\n"
            f"    return [\n{init or '        # __init__ takes no arguments'}\n    ]\n")


def extract_problem(source: str, class_name: str) -> str:
    """A self-contained problem (class `Model` aliased to `class_name`, get_inputs, get_init_inputs)."""
    chunks = _chunks(source)
    by_name: dict[str, _Chunk] = {}
    for ch in chunks:
        if ch.is_main_guard:
            continue
        for name in ch.defines:
            by_name[name] = ch  # the last definition wins, as at run time
    target = by_name.get(class_name)
    if target is None:
        broken = [c for c in chunks if c.tree is None and re.search(rf"^class\s+{class_name}\b", c.src, re.M)]
        if broken:
            raise ExtractError(f"class {class_name} has a syntax error ({broken[0].error}); fix it first")
        raise ExtractError(f"no top-level class {class_name} in this file")
    cls_node = next(n for n in target.tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    gi = next((n for n in (f"get_inputs_{class_name}", "get_inputs") if n in by_name), None)
    gii = next((n for n in (f"get_init_inputs_{class_name}", "get_init_inputs") if n in by_name), None)
    if gi is None or gii is None:
        missing = " and ".join(x for x, have in (("get_inputs", gi), ("get_init_inputs", gii)) if not have)
        raise NeedsInputs(
            f"{class_name} has no example inputs: add {missing} (or get_inputs_{class_name} / "
            f"get_init_inputs_{class_name}) at module level, returning the forward arguments and the "
            "constructor arguments. TritonRL never guesses shapes. A stub to paste and edit:",
            input_stub(class_name, _signature(cls_node, "__init__"), _signature(cls_node, "forward")))
    need, seen, todo = [], set(), [target, by_name[gi], by_name[gii]]
    while todo:
        ch = todo.pop()
        if id(ch) in seen:
            continue
        seen.add(id(ch))
        need.append(ch)
        for name in ch.uses - ch.defines - _BUILTINS:
            dep = by_name.get(name)
            if dep is not None:
                todo.append(dep)
            elif not any(c.tree is None for c in chunks):
                continue  # a global defined nowhere: the reference run will report it
            else:
                n = re.escape(name)
                defines = re.compile(rf"^(?:(?:async\s+)?def|class)\s+{n}\b|^{n}\s*[:=]|^import .*\b{n}\b", re.M)
                broken = [c for c in chunks if c.tree is None and defines.search(c.src)]
                if broken:
                    raise ExtractError(f"{class_name} needs '{name}', whose definition has a syntax error "
                                       f"({broken[0].error})")
    need.sort(key=lambda c: c.start)
    body = "".join(c.src if c.src.endswith("\n") else c.src + "\n" for c in need)
    tail = []
    if class_name != "Model":
        tail.append(f"Model = {class_name}")
    if gi != "get_inputs":
        tail.append(f"get_inputs = {gi}")
    if gii != "get_init_inputs":
        tail.append(f"get_init_inputs = {gii}")
    src = body + ("\n\n" + "\n".join(tail) + "\n" if tail else "")
    ast.parse(src)
    return src
