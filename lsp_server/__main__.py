"""`python -m lsp_server` / `tritonrl-lsp`: start the TritonRL language server (stdio by default)."""
from __future__ import annotations

import argparse
import logging
import sys

from .features import build_server
from .settings import Settings


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="tritonrl-lsp", description=__doc__)
    src = ap.add_argument_group("model (initializationOptions may also set these)")
    src.add_argument("--model", help="a Hugging Face model directory (checkpoint or LoRA adapter), or a training "
                                      "run directory: its published checkpoints are watched and reloaded")
    src.add_argument("--backend", default="auto", choices=["auto", "transformers", "vllm"])
    src.add_argument("--endpoint", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000")
    src.add_argument("--served-model", help="the model name the endpoint serves")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                    help="where the model runs and kernels are verified")
    ap.add_argument("-n", type=int, default=4, help="candidates per turn")
    ap.add_argument("--turns", type=int, default=2, help="refinement turns while none verifies")
    ap.add_argument("--trials", type=int, default=None, help="verifier trials (default: 3 CPU, 2 GPU)")
    ap.add_argument("--verify-timeout", type=float, default=None, help="seconds per sandboxed verification phase")
    ap.add_argument("--max-new-tokens", type=int, default=2048, help="tokens per candidate")
    ap.add_argument("--feedback-db", help="the feedback store (default: per user, see training.feedback)")
    ap.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default; accepted "
                                                         "because vscode-languageclient appends it)")
    ap.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead of stdio")
    ap.add_argument("--log-level", default="INFO")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    a = parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, a.log_level.upper(), logging.INFO),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)  # pygls logs every message at INFO
    settings = Settings(model=a.model, endpoint=a.endpoint, served_model=a.served_model, backend=a.backend,
                        device=a.device, n=a.n, trials=a.trials, turns=a.turns, verify_timeout_s=a.verify_timeout,
                        max_new_tokens=a.max_new_tokens, feedback_db=a.feedback_db)
    server = build_server(settings)
    if a.tcp:
        host, _, port = a.tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    # the spec: exit code 0 after `shutdown`, 1 when the server ends without one (an `exit` alone, or the client
    # gone). pygls raises that SystemExit inside its event loop, where start_io swallows it
    return 0 if server.protocol._shutdown else 1


if __name__ == "__main__":
    sys.exit(main())
