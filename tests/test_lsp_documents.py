"""lsp_server.documents: incremental edits applied by slicing give exactly pygls' result (for a
well-formed range; a reversed range is taken as the range it spans, and only \\n, \\r\\n and \\r break
lines, as LSP says)."""
import random

from lsprotocol import types
from pygls.workspace import TextDocument

from lsp_server.documents import FastTextDocument
from training.extract import modules_in, source_lines


def _ordered(r: types.Range) -> types.Range:
    if (r.end.line, r.end.character) < (r.start.line, r.start.character):
        return types.Range(r.end, r.start)
    return r


def test_fast_incremental_edits_match_pygls():
    rng = random.Random(1)
    base = "".join(f"line {i} é𝄞 " + "x" * rng.randrange(5) + ("\n" if rng.random() < 0.9 else "\r\n")
                   for i in range(40)) + "no newline at the end"
    for _ in range(1500):
        ref = TextDocument("file:///a.py", base, sync_kind=types.TextDocumentSyncKind.Incremental)
        fast = FastTextDocument("file:///a.py", base, sync_kind=types.TextDocumentSyncKind.Incremental)
        for _ in range(4):
            first = rng.randrange(len(ref.lines) + 2)
            rng_ = _ordered(types.Range(types.Position(first, rng.randrange(14)),
                                        types.Position(first + rng.randrange(3), rng.randrange(14))))
            text = rng.choice(["", "ab", "x\ny", "\n", "é𝄞"])
            # well-formed ranges only: for a reversed one pygls is wrong (see the test below). Each document gets
            # its own copy: pygls' codec clamps the positions of the range it is given in place
            for doc in (ref, fast):
                doc.apply_change(types.TextDocumentContentChangePartial(range=types.Range(
                    types.Position(rng_.start.line, rng_.start.character),
                    types.Position(rng_.end.line, rng_.end.character)), text=text))
            assert fast.source == ref.source, (rng_, text)


def edit(doc, a, b, c, d, text):
    doc.apply_change(types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(a, b), types.Position(c, d)), text=text))


def test_a_reversed_range_replaces_what_it_spans_and_does_not_duplicate_text():
    doc = FastTextDocument("file:///a.py", "ab\ncd\nef\n", sync_kind=types.TextDocumentSyncKind.Incremental)
    edit(doc, 2, 1, 0, 1, "X")       # pygls dropped this edit; the slicing duplicated "b\ncd\ne"
    assert doc.source == "aXf\n"
    edit(doc, 0, 2, 0, 1, "")        # same line, reversed: pygls duplicated the text between
    assert doc.source == "af\n"


def test_only_lsp_line_breaks_count_form_feed_and_u2028_do_not_shift_lines():
    src = "a = 1\x0c\n\x0c\nb = 2  # \u2028 pasted\r\nc = 3\rd = 4\x85\n"
    assert source_lines(src) == ["a = 1\x0c\n", "\x0c\n", "b = 2  # \u2028 pasted\r\n", "c = 3\r", "d = 4\x85\n"]
    doc = FastTextDocument("file:///a.py", src, sync_kind=types.TextDocumentSyncKind.Incremental)
    edit(doc, 3, 4, 3, 5, "9")       # line 3 as the client counts it: "c = 3"
    assert "c = 9\r" in doc.source and "d = 4" in doc.source


def test_module_lines_are_python_lines_past_a_form_feed():
    """training.extract numbered lines with str.splitlines: past a form feed every class was a line off, so the
    language server offered the action for the class above the cursor (or none)."""
    src = "import torch.nn as nn\n\x0c\n# \u2028 pasted\nclass A(nn.Module):\n    def forward(self, x):\n        return x\n"
    assert modules_in(src) == [("A", 4, 6)]
    assert modules_in(src, (4, 4)) == [("A", 4, 6)]
