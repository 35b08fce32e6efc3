"""Documents that take an incremental edit in time independent of their length.

pygls applies an incremental ``didChange`` with a Python loop over every line of the document
(about 10 ms for a 12,000-line file on this project's CPU machines, on the event loop, before the
next request is read). `FastTextDocument` does the same splice with string slices (C speed);
`use_fast_documents` makes a pygls workspace create them. Same result as pygls for every edit, with
two fixes for input pygls gets wrong: lines are LSP's (`training.extract.source_lines`: pygls' str.splitlines
also broke at a form feed or U+2028), and a reversed range is the range it spans.
"""
from __future__ import annotations

import logging
import types as pytypes
from urllib.parse import unquote

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from training.extract import source_lines

log = logging.getLogger("tritonrl.lsp")


class FastTextDocument(TextDocument):
    @property
    def lines(self) -> list[str]:
        return source_lines(self.source)

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        lines = self.lines
        rng = change.range
        if (rng.end.line, rng.end.character) < (rng.start.line, rng.start.character):
            # a reversed range (illegal, sent by a buggy client): pygls dropped the edit or duplicated text
            # between the two positions; take it as the range it spans, as VS Code's Range does. (Compared in
            # client units: pygls' clamping of a position past the line end may reverse a legal range.)
            rng = types.Range(start=rng.end, end=rng.start)
        rng = self.position_codec.range_from_client_units(lines, rng)
        start, end = rng.start, rng.end
        if start.line >= len(lines):  # an edit at the very end of the file
            self._source = self.source + change.text
            return
        head = "".join(lines[:start.line]) + lines[start.line][:start.character]
        tail = lines[end.line][end.character:] + "".join(lines[end.line + 1:]) if end.line < len(lines) else ""
        self._source = head + change.text + tail


def use_fast_documents(workspace: Workspace) -> None:
    """Make `workspace` create `FastTextDocument`s (pygls creates the workspace in `initialize`)."""
    def create(self, doc_uri, source=None, version=None, language_id=None):
        return FastTextDocument(doc_uri, source=source, version=version, language_id=language_id,
                                sync_kind=self._sync_kind, position_codec=self._position_codec)

    workspace._create_text_document = pytypes.MethodType(create, workspace)

    update = workspace.update_text_document

    def update_open(text_doc, change):
        # a didChange for a document that was never opened (or already closed) is a client bug; pygls raised
        # KeyError and the user saw "Error in server: KeyError: 'file:///…'". Nothing to update: log it.
        if workspace.text_documents.get(unquote(text_doc.uri)) is None:
            log.warning("ignoring didChange for %s: the document is not open", text_doc.uri)
            return
        update(text_doc, change)

    workspace.update_text_document = update_open
