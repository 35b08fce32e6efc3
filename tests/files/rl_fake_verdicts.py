"""`python -m training.rl` with made-up verdicts, for checking the distributed advantage slice. Used by
one test only (tests/test_rl_distributed.py::test_each_rank_gets_the_advantages_of_its_own_completions);
the end-to-end multi-process test runs the real verifier.

    accelerate launch --config_file training/configs/accelerate_cpu_2proc.yaml \
        tests/files/rl_fake_verdicts.py --config CFG --init CKPT --out DIR --no-feedback

An untrained policy's completions all fail to parse, so every reward is 0 and every advantage 0:
a wrong slice of the gathered rewards would go unnoticed. Here the verifier is replaced by verdicts
that differ within each prompt group and between ranks (correct when local index + rank is even,
the speedup from a hash of the completion), so each rank's logged advantages show whether they
were normalised over all ranks' rewards and sliced back to its own completions. Everything else
(generation, gather, loss, logging, checkpoints) is the real run.
"""
import hashlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from training import rl  # noqa: E402


def fake_verify(self, completions, completion_ids, problem):
    rank = int(os.environ.get("RANK", "0"))
    out = []
    for i, text in enumerate(completions):
        ok = (i + rank) % 2 == 0
        h = int(hashlib.sha1(text.encode()).hexdigest(), 16)
        out.append({"parse": None, "verdict": {"ok": ok, "stage": "done" if ok else "correctness",
                                               "speedup": 1.0 + (h % 8) / 4 if ok else None, "reasons": []}})
    return out


rl.VerifierReward._verify = fake_verify

if __name__ == "__main__":
    raise SystemExit(rl.main(sys.argv[1:]))
