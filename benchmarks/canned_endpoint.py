"""A stand-in *model* for smoke runs of `python -m training.eval`: an OpenAI-compatible endpoint that
answers each KernelBench level-1 prompt with the known candidates in benchmarks/kernelbench_l1
(the honest one first, then the cheats for that problem, cycled to n).

    python benchmarks/canned_endpoint.py [--level1 DIR] [--port P]

It prints its URL and serves until killed. The numbers an evaluation gets from it measure the
harness and the verifier, not a model.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from chat_server import ChatServer  # noqa: E402
from http.server import HTTPServer  # noqa: E402


def answer(path: Path) -> str:
    return f"<think>\nknown candidate {path.name}\n</think>\n```python\n{path.read_text()}```"


def replies(level1: Path, n: int = 8) -> dict[str, list[str]]:
    """{problem source: candidate answers} for every level-1 problem with an honest candidate."""
    out = {}
    for honest in sorted((HERE / "kernelbench_l1" / "honest").glob("*.py")):
        problem = level1 / honest.name
        if not problem.exists():
            continue
        cands = [honest, *sorted((HERE / "kernelbench_l1" / "cheats").glob(f"{honest.stem}__*.py"))]
        out[problem.read_text().rstrip()] = [answer(cands[i % len(cands)]) for i in range(n)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--level1", default=str(HERE.parent.parent / "shared" / "kernelbench" / "level1"))
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    table = replies(Path(args.level1))
    if not table:
        sys.exit(f"no KernelBench level-1 problems with candidates under {args.level1}")
    ChatServer.reset(table)
    srv = HTTPServer(("127.0.0.1", args.port), ChatServer)
    print(f"http://127.0.0.1:{srv.server_address[1]}  ({len(table)} problems)", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
