"""The one prompt and response format, shared by serving (LSP, `tritonrl suggest`) and training.

Prompt: KernelBench-Triton style — an instruction, a one-shot example, the problem source.
Response: a short plan in `<think> … </think>`, then exactly one fenced ```python block holding the
whole candidate (`class ModelNew`). `parse_response` returns the plan and code spans as character
offsets and, given a tokenizer, as token offsets: RL's HRD rewards plan tokens and code tokens
separately. Malformed responses are reported by name (stage `parse` in the verdict).
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Any, Sequence

INSTRUCTION = """You write Triton GPU kernels for PyTorch modules.
Given a PyTorch module `Model` with `get_inputs()` and `get_init_inputs()`, write `class ModelNew(nn.Module)`
with the same constructor and forward signatures whose computation runs in `@triton.jit` kernels.
Rules: import only torch, torch.nn, triton, triton.language and math; in forward use torch only to
allocate outputs and scratch buffers and for shapes, strides and views; handle any input size (mask
every load and store); create parameters in the same order as `Model` (or keep its submodules and
pass their weights to your kernels); no try/except, no caching between calls, no reference to `Model`.
Answer with a short plan inside <think> </think> (which kernels, what is fused, block sizes), then the
complete candidate in one ```python code block, and nothing else."""

EXAMPLE_PROBLEM = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a + b


size = 4096


def get_inputs():
    return [torch.randn(size), torch.randn(size)]


def get_init_inputs():
    return []
'''

EXAMPLE_RESPONSE = '''<think>
One elementwise kernel over the flattened tensors: each program adds a BLOCK of 1024 elements,
masked at the tail; the grid is cdiv(n, BLOCK).
</think>
```python
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        out = torch.empty_like(a)
        n = a.numel()
        add_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
        return out
```'''


def canonical_problem(src: str) -> str:
    """The problem as the model sees it: the user's source without docstrings and comments.

    Docstrings and comments are prose in the user's own words (KernelBench's "Simple model that performs a
    ReLU activation.", a colleague's TODO); the code says what to compute. A small model keys on that prose
    and is thrown by wording it never saw, so both training and serving show it the code alone. Everything
    else keeps its layout; a body left empty gets `pass`. Source that does not parse is returned unchanged
    (the verifier reports it). Whitespace-only lines become empty. The verifier always gets the user's
    original source."""
    try:
        tree = ast.parse(src)
        toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    except (SyntaxError, ValueError, tokenize.TokenError):  # IndentationError is a SyntaxError
        return src
    lines = src.splitlines(keepends=True)
    drop: set[int] = set()                      # 0-based lines removed whole
    cut: dict[int, int] = {}                    # line -> column where a trailing comment starts
    fill: dict[int, str] = {}                   # line -> replacement (a docstring that was a whole body)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            continue
        doc = body[0]
        first, last = doc.lineno - 1, doc.end_lineno - 1
        # a docstring sharing a line with other code (`def f(): "doc"; return x`) is left alone
        if lines[first][:doc.col_offset].strip() or lines[last][doc.end_col_offset:].strip() not in ("", ";"):
            continue
        drop.update(range(first, last + 1))
        if len(body) == 1:
            fill[first] = " " * doc.col_offset + "pass\n"
            continue
        nxt = last + 1                          # and the blank lines after it: the code then starts the body
        while nxt < len(lines) and not lines[nxt].strip():
            drop.add(nxt)
            nxt += 1
    for t in toks:
        if t.type == tokenize.COMMENT:
            row, col = t.start[0] - 1, t.start[1]
            if lines[row][:col].strip():
                cut[row] = col
            else:
                drop.add(row)
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in fill:
            out.append(fill[i])
        elif i in drop:
            continue
        elif i in cut:
            out.append(line[:cut[i]].rstrip() + "\n")
        else:
            out.append(line if line.strip() else "\n")   # whitespace-only lines become empty
    text = re.sub(r"\n(?:[ \t]*\n){3,}", "\n\n\n", "".join(out))  # at most two blank lines in a row
    try:
        ast.parse(text)
    except SyntaxError:  # never hand the model something broken that the user did not write
        return src
    return text.strip("\n") + "\n"


# The problem form a checkpoint was trained on, recorded as "prompt" in its tritonrl.json
# (`checkpoints.prompt_form`): "canonical" (`canonical_problem`, every checkpoint trained since 2026-12-04)
# or "raw" (the source as written: earlier checkpoints, whose metadata has no "prompt").
PROMPT_FORM = "canonical"


def user_message(problem_src: str, form: str = PROMPT_FORM) -> str:
    """The first turn's text: instruction, one-shot example, and the problem in `form`."""
    problem = canonical_problem(problem_src) if form == "canonical" else problem_src
    return (f"{INSTRUCTION}\n\nExample problem:\n```python\n{EXAMPLE_PROBLEM}```\n\nExample answer:\n"
            f"{EXAMPLE_RESPONSE}\n\nProblem:\n```python\n{problem.rstrip()}\n```\n")


def build_messages(problem_src: str, form: str = PROMPT_FORM) -> list[dict[str, str]]:
    """The chat messages of a first turn (`form`: the problem form the model was trained on)."""
    return [{"role": "user", "content": user_message(problem_src, form)}]


def feedback_message(verdict: Any) -> str:
    """The follow-up message of a refinement turn: what the verifier found, for another attempt.

    `verdict` is a verifier Verdict or its dict form."""
    d = verdict.to_dict() if hasattr(verdict, "to_dict") else dict(verdict)
    lines = [f"Your candidate was rejected at the {d.get('stage')} layer."]
    for r in d.get("reasons", [])[:5]:
        where = f" (line {r['line']})" if r.get("line") else ""
        lines.append(f"- [{r['rule']}]{where} {r['message']}")
    tail = (d.get("log_tail") or "").strip().splitlines()[-6:]
    if tail:
        lines.append("Error output (tail):\n" + "\n".join(tail))
    lines.append("Fix it. Answer again with a plan in <think> </think> and the complete corrected candidate "
                 "in one ```python block.")
    return "\n".join(lines)


def render(messages: Sequence[dict[str, str]], tokenizer: Any = None) -> str:
    """Prompt text for a model: its chat template when it has one, else a plain transcript."""
    template = getattr(tokenizer, "chat_template", None) if tokenizer is not None else None
    if template:
        return tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
    parts = [f"### {m['role'].capitalize()}\n{m['content'].rstrip()}\n" for m in messages]
    return "\n".join(parts) + "\n### Assistant\n"


_FENCE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)```", re.S)
_OPEN_FENCE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n")


@dataclass
class ParsedResponse:
    """Spans are [start, end) character offsets into `text`; token spans likewise, when computed."""

    text: str
    ok: bool
    error: str | None = None          # rule name: empty, unterminated-think, no-fence, several-fences, truncated
    message: str = ""
    plan: str = ""
    code: str = ""
    plan_span: tuple[int, int] | None = None
    code_span: tuple[int, int] | None = None
    plan_tokens: tuple[int, int] | None = None
    code_tokens: tuple[int, int] | None = None
    extra: dict = field(default_factory=dict)


def _fail(text: str, rule: str, message: str) -> ParsedResponse:
    return ParsedResponse(text=text, ok=False, error=rule, message=message)


def parse_response(text: str, tokenizer: Any = None, truncated: bool = False) -> ParsedResponse:
    """Split a response into its plan and its code; name what is wrong when it is malformed.

    `truncated`: generation stopped at max_new_tokens (a cut-off answer is never verified)."""
    if truncated:
        return _fail(text, "truncated", "the response was cut off at the token limit")
    if not text.strip():
        return _fail(text, "empty", "the response is empty")
    plan_span = None
    start = text.find("<think>")
    body_from = 0
    if start != -1:
        end = text.find("</think>", start)
        if end == -1:
            return _fail(text, "unterminated-think", "<think> is never closed with </think>")
        plan_span = (start + len("<think>"), end)
        body_from = plan_end(text)
    fences = list(_FENCE.finditer(text, body_from))
    if not fences:
        if _OPEN_FENCE.search(text, body_from):
            return _fail(text, "truncated", "the code block is never closed")
        return _fail(text, "no-fence", "no ```python code block in the response")
    if len(fences) > 1:
        return _fail(text, "several-fences", f"{len(fences)} code blocks; answer with exactly one")
    m = fences[0]
    code_span = (m.start(1), m.end(1))
    if not m.group(1).strip():
        return _fail(text, "empty", "the code block is empty")
    out = ParsedResponse(text=text, ok=True, plan=text[plan_span[0]:plan_span[1]].strip() if plan_span else "",
                         code=m.group(1), plan_span=plan_span, code_span=code_span)
    if tokenizer is not None:
        offsets = token_offsets(text, tokenizer)
        out.plan_tokens = char_to_token_span(offsets, plan_span) if plan_span else None
        out.code_tokens = char_to_token_span(offsets, code_span)
    return out


def plan_end(text: str) -> int:
    """Character offset just past `</think>` when the response has a closed plan, else 0.

    Everything before it (tags included) is the plan part of a response, everything after the code
    part: the split HRD uses to reward plan and code tokens separately, malformed responses too."""
    start = text.find("<think>")
    end = text.find("</think>", start) if start != -1 else -1
    return end + len("</think>") if end != -1 else 0


# A plan that has run this many tokens without `</think>` is a runaway (the corpus's plans are at most 126
# tokens, median 62, with the tiny config's 1024-entry tokenizer; fewer with the default model's): samplers
# then make the row write PLAN_CLOSE and go on to its code (`sampling.ClosePlan`) rather than let it fail as
# unterminated-think at max_new_tokens.
PLAN_TOKEN_BUDGET = 256
PLAN_CLOSE = "\n</think>\n```python\n"


def ends_in_plan(text: str) -> bool:
    """True when `text` (e.g. a prompt) ends inside a plan: its last `<think>` comes after its last `</think>`."""
    return text.rfind("<think>") > text.rfind("</think>")


def plan_overran(text: str) -> bool:
    """True when `text` (a response so far) opened its plan and has not closed it."""
    start = text.find("<think>")
    return start != -1 and text.find("</think>", start) == -1


def token_offsets(text: str, tokenizer: Any) -> list[tuple[int, int]]:
    """(start, end) character offsets of each token of `text` (a Hugging Face fast tokenizer, or a
    `tokenizers.Tokenizer`)."""
    if hasattr(tokenizer, "encode") and not hasattr(tokenizer, "apply_chat_template") and \
            type(tokenizer).__module__.startswith("tokenizers"):
        return [tuple(o) for o in tokenizer.encode(text, add_special_tokens=False).offsets]
    enc = tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
    return [tuple(o) for o in enc["offset_mapping"]]


def char_to_token_span(offsets: Sequence[tuple[int, int]], span: tuple[int, int]) -> tuple[int, int]:
    """The [first, last+1) token indices whose characters overlap `span`."""
    lo, hi = span
    idx = [i for i, (a, b) in enumerate(offsets) if b > lo and a < hi]
    return (idx[0], idx[-1] + 1) if idx else (0, 0)


def parse_failure_verdict(parsed: ParsedResponse):
    """A verifier Verdict for a response that never became a candidate (stage `parse`)."""
    from verifier import Verdict

    # device "": it never ran anywhere (the default "cpu" would read as a CPU-interpreter verdict)
    return Verdict(device="").fail("parse", parsed.error or "malformed-response", parsed.message)
