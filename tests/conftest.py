"""Shared fixtures: the corpus of problems and candidates, verified once per problem."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "corpus"
KB_CANDIDATES = ROOT / "benchmarks" / "kernelbench_l1"
try:  # the nearest shared/kernelbench above the checkout (../shared from main, ../../shared from a worktree)
    from training.data.novelty import find_kernelbench

    KERNELBENCH = find_kernelbench()
except ValueError:
    KERNELBENCH = ROOT.parent / "shared" / "kernelbench"


def header(path: Path, key: str) -> str | None:
    for line in path.read_text().splitlines()[:5]:
        m = re.match(rf"#\s*{key}:\s*(.+)", line)
        if m:
            return m.group(1).strip()
    return None


def pytest_collection_modifyitems(config, items):
    try:
        import torch

        has_gpu = torch.cuda.is_available()
    except Exception:
        has_gpu = False
    if not has_gpu:
        skip = pytest.mark.skip(reason="needs a CUDA GPU (run on the device)")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _cpu_only_env():
    os.environ.setdefault("TRITONRL_WORKER_THREADS", "1")


@pytest.fixture(scope="session")
def tiny_ckpt(tmp_path_factory):
    """An untrained tiny Llama-style decoder with a BPE trained on the corpus (a valid --init for the RL tests)."""
    import json

    import torch

    from training.sft import CONFIGS, build_model, train_tokenizer

    rows = [json.loads(x) for x in (ROOT / "data" / "corpus_tiny.jsonl").read_text().splitlines()]
    cfg = dict(CONFIGS["tiny"], hidden=32, layers=1, heads=2, intermediate=64, vocab=600, max_length=512)
    tok = train_tokenizer([r["problem"] + r["response"] for r in rows], cfg["vocab"])
    torch.manual_seed(0)
    d = tmp_path_factory.mktemp("init") / "ckpt"
    build_model(cfg, tok).save_pretrained(str(d))
    tok.save_pretrained(str(d))
    return d
