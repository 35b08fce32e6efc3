"""Guard against training on the benchmark: how close is a problem to any KernelBench file?

Similarity is difflib's ratio on the code with comments, docstrings and blank lines removed, so a
KernelBench problem with its comments changed still counts as a copy.
"""
from __future__ import annotations

import ast
import difflib
import io
import tokenize
from functools import lru_cache
from pathlib import Path

# Measured 2026-12-02: a KernelBench file with its comments changed scores 1.0, with sizes and input
# functions edited 0.99; generated single-op problems score at most 0.90 (the format itself is shared).
NEAR_COPY = 0.95


def normalized(src: str) -> str:
    """Code without comments, docstrings, type annotations' whitespace or blank lines."""
    try:
        tree = ast.parse(src)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body and \
                    isinstance(node.body[0], ast.Expr) and isinstance(getattr(node.body[0], "value", None), ast.Constant):
                node.body = node.body[1:] or [ast.Pass()]
        src = ast.unparse(tree)
    except SyntaxError:
        pass
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL):
            continue
        out.append(tok.string)
    return " ".join(out)


@lru_cache(maxsize=4)
def _benchmark(root: str) -> tuple[tuple[str, str], ...]:
    return tuple((str(p), normalized(p.read_text())) for p in sorted(Path(root).rglob("*.py")))


def closest(src: str, kernelbench_root: str | Path) -> tuple[float, str]:
    """(similarity, path) of the KernelBench file most like `src`."""
    mine = normalized(src)
    best = (0.0, "")
    for path, theirs in _benchmark(str(kernelbench_root)):
        sm = difflib.SequenceMatcher(None, mine, theirs, autojunk=False)
        if sm.real_quick_ratio() <= best[0] or sm.quick_ratio() <= best[0]:
            continue
        r = sm.ratio()
        if r > best[0]:
            best = (r, path)
    return best
