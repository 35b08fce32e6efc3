"""Corpus statistics for the data card: `python -m training.data.stats CORPUS.jsonl`."""
from __future__ import annotations

import json
import statistics
import sys
from collections import Counter
from pathlib import Path


def stats(path: str) -> str:
    """A markdown-ish summary: families and templates, verification, novelty, token lengths."""
    from ..sft import train_tokenizer

    rows = [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip()]
    if not rows:
        return f"0 samples in {path}"
    tok = train_tokenizer([r["problem"] for r in rows] + [r["response"] for r in rows], 1024)
    fam = Counter(r["family"] for r in rows)
    tmpl = Counter((r["family"], r["id"].split("-")[0]) for r in rows)
    lines = [f"{len(rows)} samples in {path}", "", "| family | samples | by template (id prefix) |", "|---|---|---|"]
    for k, v in sorted(fam.items()):
        parts = ", ".join(f"{p} {n}" for (f, p), n in sorted(tmpl.items()) if f == k)
        lines.append(f"| {k} | {v} | {parts} |")
    verdicts = [r["verdict"] for r in rows if "verdict" in r]
    if verdicts:
        trials = Counter(v["trials"]["run"] for v in verdicts)
        lines.append(f"\nverified: {sum(v['ok'] for v in verdicts)} of {len(rows)} passed the verifier "
                     f"(device {', '.join(sorted({v['device'] for v in verdicts}))}; trials per sample: "
                     + ", ".join(f"{k} ({n} samples)" for k, n in sorted(trials.items())) + ")")
    scores = [r["novelty"]["score"] for r in rows if "novelty" in r]
    if scores:
        lines.append(f"novelty: closest KernelBench similarity median {statistics.median(scores):.3f}, "
                     f"max {max(scores):.3f}")
    for key in ("problem", "plan", "candidate"):
        n = [len(tok(r[key])["input_ids"]) for r in rows]
        lines.append(f"\n{key}: tokens (1024-entry BPE trained on this corpus) median {statistics.median(n):.0f}, "
                     f"min {min(n)}, max {max(n)}")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_file():
        print("usage: python -m training.data.stats CORPUS.jsonl", file=sys.stderr)
        raise SystemExit(2)
    print(stats(sys.argv[1]))
