"""Corpus statistics for the data card: `python -m training.data.stats CORPUS.jsonl`."""
from __future__ import annotations

import json
import statistics
import sys
from collections import Counter
from pathlib import Path


def stats(path: str) -> str:
    from ..sft import train_tokenizer

    rows = [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip()]
    tok = train_tokenizer([r["problem"] for r in rows] + [r["response"] for r in rows], 1024)
    fam = Counter(r["family"] for r in rows)
    lines = [f"{len(rows)} samples in {path}", "", "| family | samples |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(fam.items())]
    for key in ("problem", "plan", "candidate"):
        n = [len(tok(r[key])["input_ids"]) for r in rows]
        lines.append(f"\n{key}: tokens (1024-entry BPE trained on this corpus) median {statistics.median(n):.0f}, "
                     f"min {min(n)}, max {max(n)}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(stats(sys.argv[1]))
