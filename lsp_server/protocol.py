"""pygls' LSP protocol with an answer for every request, whatever the client sends.

pygls drops two kinds of request without answering them, and a client that waits for the answer
hangs (seen with hand-written clients and with editors that send negative or out-of-range
positions, e.g. a selection computed before an edit):

* a request whose params do not match the LSP schema (a negative line, a position past 2**31, a
  string where an object belongs): pygls raises while decoding, before it knows the message's id,
  and only shows "Error in server: Invalid Params". Here the request gets an InvalidParams error
  naming the bad field; a malformed notification is logged and dropped (no one is waiting for it).
* a request after ``shutdown``: pygls ignores it; the spec says to answer InvalidRequest.
"""
from __future__ import annotations

import logging
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger("tritonrl.lsp")


def _why(exc: BaseException) -> str:
    """'invalid value @ $.params.range.start' rather than cattrs' nested exception group."""
    cause = exc.__cause__ or exc
    try:
        from cattrs import transform_error

        return "; ".join(transform_error(cause))[:500]
    except Exception:
        return f"{type(cause).__name__}: {cause}"[:500]


class _Dropped:
    """What a message that could not be decoded becomes: `handle_message` skips it."""

    jsonrpc = None


class TritonRLProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            # only the top-level message carries "jsonrpc"; nested objects never reach this branch
            method, msg_id = data.get("method"), data.get("id")
            why = _why(exc)
            if isinstance(method, str) and isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool):
                log.warning("answering a malformed %s request with InvalidParams: %s", method, why)
                self._send_response(msg_id, error=JsonRpcInvalidParams(
                    f"Invalid params for {method}: {why}").to_response_error())
            else:
                log.warning("ignoring a malformed message (%s): %s", method or "no method", why)
            return _Dropped()

    def handle_message(self, message):
        if isinstance(message, _Dropped):
            return
        if not hasattr(message, "jsonrpc"):  # a JSON value that is not a JSON-RPC object (a batch array, a number)
            log.warning("ignoring a message that is not a JSON-RPC object: %.200r", message)
            return
        method, msg_id = getattr(message, "method", None), getattr(message, "id", None)
        if self._shutdown and method is not None and msg_id is not None and method != "exit":
            self._send_response(msg_id, error=JsonRpcInvalidRequest(
                f"{method}: the server is shutting down (shutdown was received)").to_response_error())
            return
        super().handle_message(message)
