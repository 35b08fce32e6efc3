"""lsp_server.documents: incremental edits applied by slicing give exactly pygls' result."""
import random

from lsprotocol import types
from pygls.workspace import TextDocument

from lsp_server.documents import FastTextDocument


def test_fast_incremental_edits_match_pygls():
    rng = random.Random(1)
    base = "".join(f"line {i} é𝄞 " + "x" * rng.randrange(5) + ("\n" if rng.random() < 0.9 else "\r\n")
                   for i in range(40)) + "no newline at the end"
    for _ in range(1500):
        ref = TextDocument("file:///a.py", base, sync_kind=types.TextDocumentSyncKind.Incremental)
        fast = FastTextDocument("file:///a.py", base, sync_kind=types.TextDocumentSyncKind.Incremental)
        for _ in range(4):
            first = rng.randrange(len(ref.lines) + 2)
            rng_ = types.Range(types.Position(first, rng.randrange(14)),
                               types.Position(first + rng.randrange(3), rng.randrange(14)))
            change = types.TextDocumentContentChangePartial(range=rng_, text=rng.choice(["", "ab", "x\ny", "\n", "é𝄞"]))
            ref.apply_change(change)
            fast.apply_change(change)
            assert fast.source == ref.source, (rng_, change.text)
