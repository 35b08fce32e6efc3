"""The e2e's model: tests/chat_server.py (a real local OpenAI-compatible server) answering every request
with the canned, verifiable ReLU kernel of examples/relu_candidate.py, after `--delay` seconds so the
progress shows. Prints its base URL on the first line, then serves until killed."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from chat_server import ChatServer, start  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--delay", type=float, default=3.0)
    a = ap.parse_args()
    code = (ROOT / "examples" / "relu_candidate.py").read_text()
    ChatServer.reset([f"<think>One program per 1024 elements; max(x, 0) in registers.</think>\n```python\n{code}```"] * 8)
    ChatServer.delay_s = a.delay
    srv, url = start()
    print(url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
