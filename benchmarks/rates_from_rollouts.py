"""Per-problem verdicts of a checkpoint, gathered from logs that already exist, as `training.prompt_filter`'s RATES.

    python benchmarks/rates_from_rollouts.py --rollouts RUN/rl_hrd/rollouts.jsonl.gz[:MAX_STEP] ... \
        [--heldout-json EVAL.json ...] --out RATES.json

A GRPO run's training rollouts of its first steps (`MAX_STEP`: only steps <= it, while the policy is still its init)
and `benchmarks/heldout_eval.py` outputs of the same checkpoint are samples of that checkpoint on those prompts; this
pools them into `{"by_problem": {pid: ["ok" | failing stage, ...]}}` so a prompt set can be filtered without spending
device time on sampling it again (rl_h200_call.sh's FILTER=1 does that sampling on the device).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rl_report import read_jsonl  # noqa: E402


def pool(rollouts: list[tuple[Path, int | None]], evals: list[Path]) -> dict[str, list[str]]:
    """pid -> verdicts ("ok" or the failing stage) over the training rollouts (steps <= max) and the evaluations."""
    by_problem: dict[str, list[str]] = defaultdict(list)
    for path, max_step in rollouts:
        for r in read_jsonl(path):
            if r.get("mode") != "train" or (max_step is not None and r.get("step", 0) > max_step):
                continue
            by_problem[str(r["pid"])].append("ok" if r.get("ok") else str(r.get("stage")))
    for path in evals:
        for pid, stages in json.loads(path.read_text())["by_problem"].items():
            by_problem[str(pid)].extend(stages)
    return dict(by_problem)


def _rollout_arg(s: str) -> tuple[Path, int | None]:
    path, _, step = s.rpartition(":") if s.rsplit(":", 1)[-1].isdigit() else (s, "", "")
    return Path(path), int(step) if step else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rollouts", nargs="*", default=[], type=_rollout_arg, help="rollouts.jsonl[.gz][:MAX_STEP]")
    ap.add_argument("--heldout-json", nargs="*", default=[], type=Path, help="benchmarks/heldout_eval.py --out files")
    ap.add_argument("--out", required=True, type=Path)
    a = ap.parse_args(argv)
    by_problem = pool(a.rollouts, a.heldout_json)
    a.out.write_text(json.dumps({"split": "train", "by_problem": by_problem}) + "\n")
    print(f"{len(by_problem)} problems, {sum(map(len, by_problem.values()))} samples -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
