"""From a user's file and a class name to a self-contained KernelBench-format problem.

The problem holds the selected class plus what it needs from the file — imports, helper
functions, other classes, constants — and nothing else, so it loads in a fresh interpreter.
Inputs come from `get_inputs_<Class>()` / `get_init_inputs_<Class>()` or the file's plain
`get_inputs()` / `get_init_inputs()`; when there are none, `NeedsInputs` says exactly what to add,
with a stub to paste. The file may have syntax errors elsewhere: top-level statements are parsed
one by one, and only a broken statement the class needs is an error.

A name the class needs comes with every statement that gives it its value as the file runs: its last
binding, and after it every binding under if/try/for and every change (`CFG["k"] = v`, `CFG.update(...)`,
`LAYERS += [...]`, a decorator that fills a registry); a name read while the module loads gets its value
at that point. Script lines the class does not need (`torch.manual_seed`, `torch.save`, `model = Net()`,
the `__main__` block) stay out. The problem runs alone in a sandbox, so an import of the user's own project
(relative, or a module this Python cannot import) is an error naming it, as are inputs that plainly cannot
call the class (a dict, a list of the wrong length).
"""
from __future__ import annotations

import ast
import builtins
import functools
import importlib.machinery
import os
import re
import sys
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
    def binds(self) -> set[str]:
        """Names the chunk binds unconditionally (its own statements: def, class, import, `name = ...`)."""
        return self.effects[0]

    @property
    def touches(self) -> set[str]:
        """Names the chunk binds only under a condition (inside if/try/for/with) or whose object it changes
        (`CFG["k"] = v`, `LAYERS += [...]`, `Model.eps = 1e-5`): their earlier definition is still needed.
        Method calls (`CFG.update(...)`) are in `calls`."""
        return self.effects[1]

    @property
    def calls(self) -> set[tuple[str, str]]:
        """(name, method) of module-level calls `name.method(...)` / `name.a.method(...)`."""
        return self.effects[2]

    @property
    def imports(self) -> set[str]:
        """Names bound by import statements at module level."""
        return self.effects[3]

    @functools.cached_property
    def free(self) -> tuple[set[str], set[str]]:
        return _free_names(self.tree)

    @functools.cached_property
    def effects(self) -> tuple[set[str], set[str], set[tuple[str, str]], set[str]]:
        return _effects(self.tree)

    @property
    def is_import(self) -> bool:
        return bool(self.tree and self.tree.body and all(isinstance(n, (ast.Import, ast.ImportFrom))
                                                          for n in self.tree.body))

    @property
    def is_future_import(self) -> bool:
        return bool(self.tree and self.tree.body and all(isinstance(n, ast.ImportFrom) and n.module == "__future__"
                                                          for n in self.tree.body))

    @property
    def is_main_guard(self) -> bool:
        return bool(self.tree and self.tree.body and isinstance(self.tree.body[0], ast.If)
                    and "__name__" in ast.unparse(self.tree.body[0].test))


_SETTINGS = {"set_default_dtype"}  # calls on an imported module that change what the module computes


def _target_names(t: ast.expr) -> tuple[set[str], set[str]]:
    """(names bound, names whose object is changed) by an assignment target."""
    if isinstance(t, ast.Name):
        return {t.id}, set()
    if isinstance(t, ast.Starred):
        return _target_names(t.value)
    if isinstance(t, (ast.Tuple, ast.List)):
        bound: set[str] = set()
        changed: set[str] = set()
        for e in t.elts:
            b, c = _target_names(e)
            bound |= b
            changed |= c
        return bound, changed
    base = t
    while isinstance(base, (ast.Attribute, ast.Subscript)):
        base = base.value
    return set(), ({base.id} if isinstance(base, ast.Name) else set())


def _module_statements(stmts: list, nested: bool = False):
    """(statement, nested) for each statement run at module level: the chunk's own, and those inside its
    if/try/for/while/with blocks, never those inside a def or class body."""
    for node in stmts:
        yield node, nested
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            sub = getattr(node, field, None)
            if isinstance(sub, list):
                yield from _module_statements(sub, True)


def _effects(tree: ast.Module | None) -> tuple[set[str], set[str], set[tuple[str, str]], set[str]]:
    """Module-level effects of a chunk: names bound unconditionally, names bound conditionally or changed,
    method calls (name, method), names bound by imports."""
    binds: set[str] = set()
    touches: set[str] = set()
    calls: set[tuple[str, str]] = set()
    imports: set[str] = set()
    for node, nested in _module_statements(tree.body if tree else []):
        bound: set[str] = set()
        changed: set[str] = set()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = {node.name}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound = {(a.asname or a.name).split(".")[0] for a in node.names}
            imports |= bound
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            if isinstance(node, ast.AnnAssign) and node.value is None:
                continue  # `x: int` binds nothing
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                b, c = _target_names(t)
                bound |= b
                changed |= c
        elif isinstance(node, ast.AugAssign):
            changed = set().union(*_target_names(node.target))
        elif isinstance(node, ast.Delete):
            changed = set().union(*(set().union(*_target_names(t)) for t in node.targets))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            changed = set().union(*_target_names(node.target))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            bound = set().union(*(set().union(*_target_names(i.optional_vars)) for i in node.items
                                  if i.optional_vars is not None))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound = {node.name}
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func,
                                                                                           ast.Attribute):
            f = node.value.func  # CFG.update(...), LAYERS.append(...), torch.set_default_dtype(...)
            calls |= {(name, f.attr) for name in _target_names(f)[1]}
        if nested:
            touches |= bound | changed
        else:
            binds |= bound
            touches |= changed
    return binds, touches, calls, imports


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


# str.splitlines also breaks at these; Python's tokenizer and LSP break lines only at \n, \r\n and \r
_NOT_LINE_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_BREAK_AFTER = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


def source_lines(text: str) -> list[str]:
    """`text` split into lines as Python and LSP count them (line ends kept). With str.splitlines a form feed (common
    in older Python files) or a U+2028 in a comment made every later line number off by one: the language server
    offered code actions for the wrong class and applied edits to the wrong line."""
    if not _NOT_LINE_BREAKS.search(text):
        return text.splitlines(True)  # the same split, at C speed
    parts = _BREAK_AFTER.split(text)
    return parts[:-1] if parts and parts[-1] == "" else parts


def _chunks(source: str) -> list[_Chunk]:
    """Top-level statements, each parsed on its own (decorators stay with their definition)."""
    lines = source_lines(source)
    starts = _starts(lines)
    return [_parse(lines, a, b) for a, b in zip(starts, starts[1:] + [len(lines)])]


def _signature(node: ast.ClassDef, method: str, defaults: bool = False) -> list[str]:
    """The method's positional parameters after self (with `defaults`, `name=default` where it has one)."""
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == method:
            pos = [*item.args.posonlyargs, *item.args.args][1:]
            vals = [None] * (len(pos) - len(item.args.defaults)) + list(item.args.defaults)
            return [f"{a.arg}={ast.unparse(d)}" if defaults and d is not None else a.arg for a, d in zip(pos, vals)]
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
        lines = source_lines(source)
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


def input_stub(cls_name: str, init_args: list[str], forward_args: list[str],
               which: tuple[str, ...] = ("get_inputs", "get_init_inputs")) -> str:
    """Module-level code for the user to paste and edit: example inputs for `cls_name` (the functions in
    `which`: only those the file lacks)."""
    fwd = "\n".join(f"        torch.randn(8, 64),  # {a}: edit to a realistic shape and dtype" for a in forward_args)
    init = "\n".join(f"        {a.partition('=')[2] or '...'},  # {a.partition('=')[0]}" for a in init_args)
    parts = []
    if "get_inputs" in which:
        parts.append(f"def get_inputs_{cls_name}():\n    \"\"\"Example inputs for {cls_name}.forward.\"\"\"\n"
                     f"    return [\n{fwd or '        # forward takes no arguments'}\n    ]\n")
    if "get_init_inputs" in which:
        parts.append(f"def get_init_inputs_{cls_name}():\n    \"\"\"Constructor arguments for {cls_name}(...).\"\"\"\n"
                     f"    return [\n{init or '        # __init__ takes no arguments'}\n    ]\n")
    return "\n\n".join(parts)


def _function_locals(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Names local to a function: its parameters and every name it binds (minus those declared global)."""
    a = fn.args
    out = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, *[v for v in (a.vararg, a.kwarg) if v]]}
    glob: set[str] = set()
    for node in ast.walk(fn.body if isinstance(fn, ast.Lambda) else ast.Module(body=fn.body, type_ignores=[])):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(x.asname or x.name).split(".")[0] for x in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            glob |= set(node.names)
    return out - glob


def _free_names(tree: ast.Module | None) -> tuple[set[str], set[str]]:
    """Module-level names a chunk reads: (read while the module loads — class bodies, decorators, defaults —,
    read later, when a function runs). A function's own parameters and locals are not module-level names."""
    eager: set[str] = set()
    late: set[str] = set()

    def visit(node: ast.AST, local: set[str], now: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            outer = [*a.defaults, *[d for d in a.kw_defaults if d is not None]]
            if not isinstance(node, ast.Lambda):
                outer += [*node.decorator_list, *([node.returns] if node.returns else [])]
                params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *[v for v in (a.vararg, a.kwarg) if v]]
                outer += [x.annotation for x in params if x.annotation is not None]
            for n in outer:
                visit(n, local, now)
            inner = local | _function_locals(node)
            for n in (node.body if isinstance(node.body, list) else [node.body]):
                visit(n, inner, False)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
            (eager if now else late).add(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child, local, now)

    if tree is not None:
        visit(tree, set(), True)
    return eager, late


def _load_calls(tree: ast.Module | None) -> set[str]:
    """Names of functions a chunk calls while the module loads, as far as a shallow look finds them: decorators
    (`@register("swish")`) and calls in module-level statements (`register(Foo)`, `x = build()`)."""
    out: set[str] = set()
    for node, _ in _module_statements(tree.body if tree else []):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            exprs = node.decorator_list
            out |= {d.id for d in exprs if isinstance(d, ast.Name)}
        else:
            exprs = [getattr(node, "value", None)]
        out |= {c.func.id for e in exprs if isinstance(e, ast.expr) for c in ast.walk(e)
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
    return out


_MUTATORS = {"append", "extend", "insert", "update", "add", "setdefault", "__setitem__"}


def _global_writes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Module-level names a function (its nested functions included) changes when called: `REG[name] = f`,
    `REG.append(f)`, `global N; N = ...` (a registry filled by a decorator)."""
    local = set().union(*(_function_locals(f) for f in ast.walk(fn)
                          if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))))
    glob = {n for f in ast.walk(fn) if isinstance(f, ast.Global) for n in f.names}
    out = set(glob)
    for node in ast.walk(fn):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS):
            targets = [node.func]
        for t in targets:
            out |= {n for n in _target_names(t)[1] if n not in local or n in glob}
    return out


def _returned(ch: _Chunk, fn_name: str) -> ast.expr | None:
    """What the module-level function `fn_name` returns, when it has exactly one return statement."""
    fn = next((n for n in ch.tree.body if isinstance(n, ast.FunctionDef) and n.name == fn_name), None) if ch.tree \
        else None
    if fn is None:
        return None
    rets = [n for n in ast.walk(ast.Module(body=fn.body, type_ignores=[])) if isinstance(n, ast.Return)]
    nested = [n for n in ast.walk(ast.Module(body=fn.body, type_ignores=[]))
              if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    return rets[0].value if len(rets) == 1 and not nested else None


def _arity(cls_node: ast.ClassDef, method: str) -> tuple[list[str], int | None] | None:
    """(required positional parameters, most positional arguments or None for *args) of a method the class
    defines itself; None when it inherits it."""
    fn = next((n for n in cls_node.body if isinstance(n, ast.FunctionDef) and n.name == method), None)
    if fn is None:
        return None
    pos = [x.arg for x in [*fn.args.posonlyargs, *fn.args.args]][1:]
    required = pos[:len(pos) - len(fn.args.defaults)] if fn.args.defaults else pos
    return required, (None if fn.args.vararg else len(pos))


def _check_inputs(class_name: str, cls_node: ast.ClassDef, what: str, fn_name: str, ch: _Chunk) -> None:
    """A get_inputs / get_init_inputs that plainly cannot call the class: a dict, or a list literal of the wrong
    length. (What the functions compute is only known when they run: the reference run reports the rest.)"""
    ret = _returned(ch, fn_name)
    method, args = ("forward", "forward arguments") if what == "get_inputs" else ("__init__", "constructor arguments")
    call = f"{class_name}(*{fn_name}())" if what == "get_init_inputs" else f"model(*{fn_name}())"
    if isinstance(ret, ast.Dict) or (isinstance(ret, ast.Call) and isinstance(ret.func, ast.Name)
                                     and ret.func.id == "dict"):
        raise ExtractError(f"{fn_name}() returns a dict, but the verifier calls {call} (the KernelBench format): "
                           f"return a list of the {args} in the order {class_name}.{method} takes them.")
    arity = _arity(cls_node, method)
    if arity is None or not isinstance(ret, (ast.List, ast.Tuple)) or any(isinstance(e, ast.Starred)
                                                                           for e in ret.elts):
        return
    (required, most), n = arity, len(ret.elts)
    if n >= len(required) and (most is None or n <= most):
        return
    wants = (f"at least {len(required)} ({', '.join(required)})" if n < len(required)
             else f"at most {most}")
    msg = f"{fn_name}() gives {n} {args}, but {class_name}.{method} takes {wants}"
    if fn_name == what:  # shared by the file's classes: this one gets its own
        init, fwd = _signature(cls_node, "__init__", defaults=True), _signature(cls_node, "forward")
        raise NeedsInputs(f"{msg}: add {what}_{class_name}() at module level for {class_name} (the file's {what}() "
                          "stays for its other classes). A stub to paste and edit:",
                          input_stub(class_name, init, fwd, which=(what,)))
    raise ExtractError(f"{msg}: make it return the {args} {class_name} needs.")


def _installed(top: str) -> bool:
    """Whether the Python running TritonRL (the verifier's sandboxes run the same one) can import `top` without
    the current directory: the sandbox has no access to the user's project."""
    if top in sys.builtin_module_names or top in getattr(sys, "stdlib_module_names", ()):
        return True
    cwd = os.path.realpath(os.getcwd())
    path = [p for p in sys.path if p and os.path.realpath(p) != cwd]
    try:
        return importlib.machinery.PathFinder.find_spec(top, path) is not None
    except (ImportError, ValueError):
        return False


def _check_imports(class_name: str, need: list[_Chunk], used: set[str]) -> None:
    """The problem runs on its own in a sandbox, without the user's other files: an import of a module of the
    user's project (relative, or not installed) is reported here, naming it, instead of failing there."""
    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            guarded = True  # try: import x / except ImportError: the user has a fallback
        if isinstance(node, ast.If) and ast.unparse(node.test).split(".")[-1] == "TYPE_CHECKING":
            guarded = True  # if TYPE_CHECKING: (typing.TYPE_CHECKING) imports for type checkers only, never run
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not guarded:
            names = [a.asname or a.name for a in node.names]
            what = ", ".join(n for n in names if n in used or n == "*") or ", ".join(names)
            if isinstance(node, ast.ImportFrom) and node.level:
                mod = "." * node.level + (node.module or "")
                raise ExtractError(
                    f"{class_name} needs {what} from '{mod}', a relative import of your own project's code; the "
                    f"verifier runs {class_name} on its own, without your project's other files: copy what it needs "
                    "from there into this file.")
            for mod in [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]:
                if mod and not _installed(mod.split(".")[0]):
                    raise ExtractError(
                        f"{class_name} needs {what} from '{mod}', which the Python running TritonRL "
                        f"({sys.executable}) cannot import: if it is a file of your project, copy what {class_name} "
                        "needs from it into this file (the verifier runs the module on its own, without your "
                        "project's other files); if it is a package, install it into that Python.")
        for child in ast.iter_child_nodes(node):
            visit(child, guarded)

    for ch in need:
        visit(ch.tree, False)


def extract_problem(source: str, class_name: str) -> str:
    """A self-contained problem (class `Model` aliased to `class_name`, get_inputs, get_init_inputs)."""
    chunks = _chunks(source)
    live = [c for c in chunks if not c.is_main_guard and c.tree is not None]  # run at import, in order
    imported = set().union(*(c.imports for c in live))
    load_calls = {id(c): _load_calls(c.tree) for c in live}
    called = set().union(*load_calls.values())
    writers = {n.name: _global_writes(n) for c in live for n in c.tree.body
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in called}
    changes = {id(c): c.touches | {n for n, m in c.calls if n not in imported or m in _SETTINGS}
               | set().union(*(writers.get(f, set()) for f in load_calls[id(c)])) for c in live}
    stars = [c for c in live if "*" in c.binds]

    def resolve(name: str, before: _Chunk | None = None) -> list[_Chunk]:
        """The chunks that give `name` its value (at the end of the file, or just before chunk `before`): its
        last unconditional binding and every conditional binding or change after it."""
        out = []
        for c in reversed(live):
            if before is not None and c.start >= before.start:
                continue
            if name in c.binds:
                return out + [c]
            if name in changes[id(c)]:
                out.append(c)
        return out

    defs = [(c, n) for c in live for n in c.tree.body if isinstance(n, ast.ClassDef) and n.name == class_name]
    if not defs:
        broken = [c for c in chunks if c.tree is None and re.search(rf"^class\s+{class_name}\b", c.src, re.M)]
        if broken:
            raise ExtractError(f"class {class_name} has a syntax error ({broken[0].error}); fix it first")
        raise ExtractError(f"no top-level class {class_name} in this file")
    target, cls_node = defs[-1]  # the last definition wins, as at run time
    gi = next((n for n in (f"get_inputs_{class_name}", "get_inputs") if resolve(n)), None)
    gii = next((n for n in (f"get_init_inputs_{class_name}", "get_init_inputs") if resolve(n)), None)
    if gi is None or gii is None:
        lacking = tuple(x for x, have in (("get_inputs", gi), ("get_init_inputs", gii)) if not have)
        missing = " and ".join(lacking)
        own = " / ".join(f"{x}_{class_name}" for x in lacking)
        returning = " and the ".join({"get_inputs": "forward arguments", "get_init_inputs": "constructor arguments"}[x]
                                     for x in lacking)
        raise NeedsInputs(
            f"{class_name} has no example inputs: add {missing} (or {own}) at module level, returning the "
            f"{returning}. "
            "TritonRL never guesses shapes. A stub to paste and edit:",
            input_stub(class_name, _signature(cls_node, "__init__", defaults=True), _signature(cls_node, "forward"),
                       which=lacking))
    for what, fn in (("get_init_inputs", gii), ("get_inputs", gi)):
        fn_chunk = resolve(fn)[-1]
        if fn in fn_chunk.binds:
            _check_inputs(class_name, cls_node, what, fn, fn_chunk)
    need: list[_Chunk] = []
    seen: set[int] = set()
    used: set[str] = set()
    # `from __future__ import ...` changes how the whole file runs (annotations left unevaluated): it always comes
    todo = [target, *resolve(class_name), *resolve(gi), *resolve(gii), *(c for c in live if c.is_future_import)]
    while todo:
        ch = todo.pop()
        if id(ch) in seen:
            continue
        seen.add(id(ch))
        need.append(ch)
        eager, late = ch.free
        for name in (eager | late) - _BUILTINS:
            used.add(name)
            deps = resolve(name, before=ch) if name in eager else []
            if not deps and name in eager and name in ch.binds | changes[id(ch)]:
                continue  # `for n in ...: REG[n] = ...`: bound here
            deps = deps or resolve(name)
            if deps:
                todo += deps
            elif stars:
                todo += stars  # from torch.nn import *: the names it binds are known only at run time
            elif not any(c.tree is None for c in chunks):
                continue  # a global defined nowhere: the reference run will report it
            else:
                n = re.escape(name)
                defines = re.compile(rf"^(?:(?:async\s+)?def|class)\s+{n}\b|^{n}\s*[:=]|^import .*\b{n}\b", re.M)
                broken = [c for c in chunks if c.tree is None and defines.search(c.src)]
                if broken:
                    raise ExtractError(f"{class_name} needs '{name}', whose definition has a syntax error "
                                       f"({broken[0].error})")
    _check_imports(class_name, need, used)
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
