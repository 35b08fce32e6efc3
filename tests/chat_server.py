"""A real local HTTP server speaking the OpenAI chat-completions API, for backend, CLI and LSP tests.

Set `ChatServer.replies` (strings, or dicts {"text", "finish"}; or a dict {substring: replies} that answers
with the replies of the first substring found in the last message, e.g. one list per problem), read
`ChatServer.requests` (each {"path", "auth", "body"}); `delay_s` slows answers, `raw` answers raw bytes
(a broken server).
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


class ChatServer(BaseHTTPRequestHandler):
    replies: list = []
    requests: list[dict] = []
    delay_s: float = 0.0
    raw: bytes | None = None

    @classmethod
    def reset(cls, replies: list | dict | None = None) -> None:
        cls.replies = dict(replies) if isinstance(replies, dict) else list(replies or [])
        cls.requests, cls.delay_s, cls.raw = [], 0.0, None

    def do_POST(self):  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        time.sleep(self.delay_s)
        replies = self.replies
        if isinstance(replies, dict):
            last = (body.get("messages") or [{}])[-1].get("content", "")
            replies = next((v for k, v in replies.items() if k in last), [])
        replies = [r if isinstance(r, dict) else {"text": r} for r in replies[:body.get("n", 1)]]
        choices = [{"index": i, "message": {"role": "assistant", "content": r["text"]},
                    "finish_reason": r.get("finish", "stop")} for i, r in enumerate(replies)]
        data = self.raw or json.dumps({"id": "x", "object": "chat.completion", "choices": choices}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


def start() -> tuple[HTTPServer, str]:
    """Start a server on a free loopback port; returns (server, base URL)."""
    srv = HTTPServer(("127.0.0.1", 0), ChatServer)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"
