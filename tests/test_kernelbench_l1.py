"""The KernelBench level-1 candidates (benchmarks/kernelbench_l1) on CPU, scaled down.

Their real-size results on the H200 are in benchmarks/results/; here every honest one must verify
and every cheat must fail as labelled. Problems are read from ../shared/kernelbench (evaluate on
KernelBench, never train on it).
"""
import re

import pytest

from conftest import KB_CANDIDATES, KERNELBENCH
from verifier import verify_batch

LEVEL1 = KERNELBENCH / "level1"
HONEST = sorted((KB_CANDIDATES / "honest").glob("*.py"))
pytestmark = pytest.mark.skipif(not LEVEL1.is_dir(), reason="../shared/kernelbench not present")


@pytest.mark.parametrize("honest", HONEST, ids=lambda p: p.stem)
def test_kernelbench_candidates(honest):
    files = [honest] + sorted((KB_CANDIDATES / "cheats").glob(f"{honest.stem}__*.py"))
    vs = verify_batch((LEVEL1 / honest.name).read_text(), [f.read_text() for f in files], device="cpu")
    assert vs[0].ok, vs[0].summary()
    for f, v in zip(files[1:], vs[1:]):
        exp = re.match(r"#\s*expect:\s*(\S+)\s+(\S+)", f.read_text()).groups()
        assert not v.ok and exp in {(r.stage, r.rule) for r in v.reasons}, (f.name, v.summary())


def test_at_least_ten_problems():
    assert len(HONEST) >= 10
