"""The timing phase, run on the CPU by the wall clock (`time_on_cpu`): its protocol and its honesty checks.

A candidate is timed on the inputs it was verified on, many calls in a row; a candidate that behaves
once its correctness trials are over (a call counter, a replay of an earlier result, torch doing the
work, no launch at all) must fail however fast it is. On a GPU the same checks run around CUDA-event
timing (tests/test_gpu.py); here the interpreter's speed means nothing, only the verdicts do.
"""
import hashlib

import pytest

from conftest import CORPUS, header
from verifier.static_check import check_candidate
from verifier import verify, verify_batch

TIMED = dict(device="cpu", time_on_cpu=True, compile_baseline=False)
RELU = (CORPUS / "problems" / "relu.py").read_text()
HONEST_RELU = (CORPUS / "honest" / "relu__helper_launcher.py").read_text()
TIMING_CHEATS = sorted((CORPUS / "timing_cheats").glob("*.py"))


def _problem(path) -> str:
    return (CORPUS / "problems" / f"{header(path, 'problem')}.py").read_text()


@pytest.mark.parametrize("name", ["relu__helper_launcher.py", "relu__autotuned.py", "matmul__tiled_dot.py",
                                  "two_outputs__single_fused.py", "row_softmax__online.py",
                                  # a forward that takes a list of tensors: the timed loop's refill and its layout
                                  # check compared the list's tensors with `==`, and the phase crashed (2026-12-07)
                                  "concat_list_input__copy_per_part.py"])
def test_honest_candidates_are_timed_and_pass_the_timing_checks(name):
    path = CORPUS / "honest" / name
    v = verify(_problem(path), path.read_text(), **TIMED)
    assert v.ok, v.summary()
    assert v.time_ms > 0 and v.ref_eager_ms > 0 and v.speedup > 0
    assert v.phases_s["timing"] > 0
    assert v.timed_calls["checked"] >= 10 and v.timed_calls["audits"] >= 2  # 5+ event-timed, 10 synchronised


def test_timing_cheats_are_corpus_files_with_an_expectation():
    assert len(TIMING_CHEATS) >= 2
    for p in TIMING_CHEATS:
        assert header(p, "expect") == "performance timed-output-mismatch", p.name


@pytest.mark.parametrize("path", TIMING_CHEATS, ids=lambda p: p.stem)
def test_state_kept_in_device_memory_passes_correctness_but_not_timing(path):
    """These pass every correctness trial (checked: without timing they verify); what they time is not the work that
    was checked. They read `._version`, which the static rules refuse since round 5 (tensor privates): run with them
    off, the timing phase's own checks must catch them."""
    src = path.read_text()
    assert "reflection" in {f.rule for f in check_candidate(src, _problem(path))}
    untimed = verify(_problem(path), src, device="cpu", static_checks=False)
    assert untimed.ok, untimed.summary()
    v = verify(_problem(path), src, static_checks=False, **TIMED)
    stage, rule = header(path, "expect").split()
    assert not v.ok and v.stage == stage and rule in v.rules, v.summary()


def _after_correctness(body: str) -> str:
    """The honest ReLU, but in the timing phase's calls (from their first refill on) `body` runs instead. It tells
    them apart by the input's version counter: the timing phase refills its buffers in place, the correctness trials
    get fresh clones. (A call counter kept in Python, which these tests used, is refused at correctness since round 5,
    and `._version` by the static rules: these run with static checks off and test the timing phase's own checks.)"""
    src = HONEST_RELU.replace("    def forward(self, x):\n",
                              "    def forward(self, x):\n        if x._version > 0:\n" + body, 1)
    assert src != HONEST_RELU
    return src


def test_torch_doing_the_work_when_timed_is_seen_by_the_audit_calls():
    cheat = _after_correctness("            _relu_fwd[(1,)](x, torch.empty(1), 0, BLOCK_SIZE=16)\n"
                               "            return torch.relu(x)\n")
    v = verify(RELU, cheat, static_checks=False, **TIMED)
    assert not v.ok and v.stage == "performance" and v.rules == ["runtime-torch-compute"], v.summary()
    assert "aten.relu" in v.summary()


def test_no_launch_when_timed_fails():
    cheat = _after_correctness("            return torch.zeros_like(x)\n")
    v = verify(RELU, cheat, static_checks=False, **TIMED)
    assert not v.ok and v.rules == ["launch-skipped-when-timed"], v.summary()


def test_result_cached_by_input_address_goes_stale_when_inputs_are_refilled():
    """A memo keyed on the input's address launches its kernel on every call (so no call is without a
    launch) but returns the first result for an address: the timing phase refills the same buffers with
    other trials' inputs, and the stale result is wrong."""
    cheat = HONEST_RELU.replace("    def forward(self, x):\n", "    def forward(self, x, _memo={}):\n", 1).replace(
        "    return y\n", "    return y\n\n\ndef _memoised(x, memo):\n"
        "    y = triton_relu(x)\n    return memo.setdefault(x.data_ptr(), y)\n", 1).replace(
        "        return triton_relu(x)", "        return _memoised(x, _memo)")
    assert "_memoised(x, _memo)" in cheat
    v = verify(RELU, cheat, static_checks=False, **TIMED)
    # the caching allocator may hand a later trial the same address: then correctness catches it first
    assert not v.ok and (v.stage == "correctness" or v.rules == ["timed-output-mismatch"]), v.summary()


def test_baseline_is_timed_once_and_only_when_a_candidate_needs_it():
    """Lazy baseline timing (the protocol tests/test_gpu.py runs on a GPU): the reference worker writes its
    outputs and waits; the baseline is timed when the first candidate passes correctness, once per problem,
    and never when none passes."""
    from verifier.runner import _TIMING_CACHE

    problem = RELU.replace("dim = 1024", "dim = 1000")
    key = hashlib.sha256(f"{problem}|cpu".encode()).hexdigest()
    wrong = HONEST_RELU.replace("tl.where(v > 0, v, 0.0)", "tl.where(v > 1, v, 0.0)")
    assert wrong != HONEST_RELU
    rejected = verify_batch(problem, [wrong, wrong], lazy_baseline=True, **TIMED)
    assert not any(v.ok for v in rejected) and {v.stage for v in rejected} == {"correctness"}
    assert not any(k.startswith("ref_") for v in rejected for k in v.phases_s)
    assert key not in _TIMING_CACHE  # nothing was timed for this problem
    vs = verify_batch(problem, [HONEST_RELU, HONEST_RELU, wrong], lazy_baseline=True, **TIMED)
    assert vs[0].ok and vs[1].ok and not vs[2].ok, [v.summary() for v in vs]
    assert sum("ref_timing" in v.phases_s for v in vs) == 1, [v.phases_s for v in vs]
    assert vs[0].ref_eager_ms == vs[1].ref_eager_ms > 0 and vs[0].speedup > 0
    assert _TIMING_CACHE[key]["eager_ms"] == vs[0].ref_eager_ms
    again = verify(problem, HONEST_RELU, lazy_baseline=True, **TIMED)  # cached: the worker ends after its outputs
    assert again.ok and again.ref_eager_ms == vs[0].ref_eager_ms
    assert not any(k.startswith("ref_") for k in again.phases_s)


def test_a_cached_baseline_is_timed_again_when_old_and_the_faster_reading_is_kept(monkeypatch):
    """A long-lived server verifies one module job after job: its baseline is cached, timed again once older than
    BASELINE_TTL_S, and the faster reading kept (a baseline timed under load would inflate every later speedup)."""
    from verifier import runner

    problem = RELU.replace("dim = 1024", "dim = 1001")
    key = hashlib.sha256(f"{problem}|cpu".encode()).hexdigest()
    first = verify(problem, HONEST_RELU, lazy_baseline=True, **TIMED)
    assert first.ok and "ref_timing" in first.phases_s
    fresh = runner._TIMING_CACHE[key]["eager_ms"]
    # as if that reading had been taken under load (1000x slow) and long ago: the next batch times it again
    runner._TIMING_CACHE[key]["eager_ms"] = fresh * 1000
    monkeypatch.setitem(runner._TIMING_AT, key, runner._TIMING_AT[key] - runner.BASELINE_TTL_S - 1)
    again = verify(problem, HONEST_RELU, lazy_baseline=True, **TIMED)
    assert again.ok and "ref_timing" in again.phases_s, again.phases_s
    assert again.ref_eager_ms < fresh * 100 and runner._TIMING_CACHE[key]["eager_ms"] == again.ref_eager_ms
    # a reading faster than the new one survives a re-timing (the new one is the slower, loaded one)
    runner._TIMING_CACHE[key]["eager_ms"] = again.ref_eager_ms / 1000
    monkeypatch.setitem(runner._TIMING_AT, key, runner._TIMING_AT[key] - runner.BASELINE_TTL_S - 1)
    third = verify(problem, HONEST_RELU, lazy_baseline=True, **TIMED)
    assert "ref_timing" in third.phases_s and third.ref_eager_ms == again.ref_eager_ms / 1000
    # and while it is fresh it is not timed again
    fourth = verify(problem, HONEST_RELU, lazy_baseline=True, **TIMED)
    assert not any(k.startswith("ref_") for k in fourth.phases_s) and fourth.ref_eager_ms == third.ref_eager_ms


def test_the_time_counts_only_calls_on_inputs_the_candidate_has_not_seen():
    """A cache keyed by the inputs' contents (a fingerprint computed in a kernel, the result replayed from device
    memory) was right on every timed call and fast on all of them when the timing loop replayed the correctness
    trials' inputs: the red team's matmul cache verified with the time of a copy (round 4). The timed sets are now
    base trials the candidate has not seen, and only each set's first call makes the reported time."""
    import time

    import torch

    from verifier.timing import event_ms
    from verifier.worker_candidate import _OpLog, _TimedCalls

    cache = {}

    def memo(x):  # slow to compute, instant to replay
        key = x.sum().item()
        if key not in cache:
            time.sleep(0.03)
            cache[key] = x * 2
        return cache[key].clone()

    torch.manual_seed(0)
    warm = [torch.randn(64)]
    memo(*warm)  # the correctness trials saw these
    sets = [(t, [torch.randn(64)]) for t in range(3, 7)]
    tc = _TimedCalls(memo, sets, "cpu", _OpLog(), None, None, warm=warm)
    ms = event_ms(tc.call, device="cpu", before=tc.before, after=tc.after("event"), counted=tc.counted)
    assert ms >= 25, ms  # the replays (about 0 ms) are not what was timed
    assert not tc.mismatch and sorted(tc.first) == [3, 4, 5, 6]


def test_a_capped_timed_loop_reports_the_same_time_and_checks_every_call():
    """`timing_reps` (RL caps it) bounds the timed loop's calls, not what makes the time: two passes over the sets
    still time each set's first call, and every call after the first per set is checked against it."""
    import time

    import torch

    from verifier.timing import event_ms
    from verifier.worker_candidate import _OpLog, _TimedCalls

    calls = []

    def slow_double(x):
        calls.append(1)
        time.sleep(0.01)
        return x * 2

    torch.manual_seed(0)
    warm = [torch.randn(64)]
    sets = [(t, [torch.randn(64)]) for t in range(3, 7)]
    tc = _TimedCalls(slow_double, sets, "cpu", _OpLog(), None, None, warm=warm)
    ms = event_ms(tc.call, device="cpu", budget_ms=1e6, before=tc.before, after=tc.after("event"),
                  counted=tc.counted, max_reps=2 * len(sets))
    assert 8 <= ms < 100, ms
    assert len(calls) == 3 + 1 + 8 + tc.audits  # warm-up, estimate, the capped loop and its audits
    assert sorted(tc.first) == [3, 4, 5, 6] and tc.checked == 8 + tc.audits and not tc.mismatch


def test_timing_reps_reaches_the_worker_and_an_honest_candidate_still_verifies():
    v = verify(RELU, HONEST_RELU, timing_reps=3, **TIMED)  # below two passes: the worker raises it to two
    assert v.ok, v.summary()
    assert v.time_ms > 0 and v.timed_calls["checked"] >= 10



def test_batch_timing_times_the_correct_candidates_together_after_every_correctness_phase():
    """`batch_timing` (RL): no candidate is timed until every candidate of the batch has had its correctness phase;
    then the baseline and the correct ones are timed in one window, each verdict with its own worker's timing (a
    timing cheat between two honest kernels still fails, and only it). Without it, with one sandbox at a time, the
    first candidate is timed before the second is checked (the order this test tells them apart by)."""
    cheat = CORPUS / "timing_cheats" / "relu__input_version_detects_timing.py"
    problem = _problem(cheat).replace("dim = 1024", "dim = 1002")  # its own baseline, not one cached by a test
    wrong = HONEST_RELU.replace("tl.where(v > 0, v, 0.0)", "tl.where(v > 1, v, 0.0)")
    events: list[tuple[int, str]] = []
    batch = [HONEST_RELU, cheat.read_text(), wrong, HONEST_RELU.replace("BLOCK_SIZE = 256", "BLOCK_SIZE = 128")]
    assert batch[3] != HONEST_RELU
    vs = verify_batch(problem, batch, static_checks=False, batch_timing=True, max_parallel=1,
                      progress=lambda i, phase: events.append((i, phase)), lazy_baseline=True, **TIMED)
    assert [v.ok for v in vs] == [True, False, False, True], [v.summary() for v in vs]
    assert vs[1].stage == "performance" and vs[1].rules == ["timed-output-mismatch"], vs[1].summary()
    assert vs[2].stage == "correctness"
    for v in (vs[0], vs[3]):
        assert v.speedup > 0 and v.time_ms > 0 and v.phases_s["timing"] > 0 and v.ref_eager_ms == vs[0].ref_eager_ms
    assert sum("ref_timing" in v.phases_s for v in vs) == 1
    phases = [p for _, p in events]
    last_check = max(n for n, p in enumerate(phases) if p == "correctness")
    first_timing = min(n for n, p in enumerate(phases) if p == "timing")
    assert phases.count("correctness") == 4 and last_check < first_timing, events
    one_by_one = []
    verify_batch(problem, batch[:1] + batch[2:3], static_checks=False, max_parallel=1, lazy_baseline=True,
                 progress=lambda i, phase: one_by_one.append((i, phase)), **TIMED)
    assert one_by_one.index((0, "timing")) < one_by_one.index((1, "correctness")), one_by_one


def test_batch_timing_parks_at_most_its_cap_of_waiting_workers():
    """Each correct kernel waiting for its batch's timing window keeps a sandbox (a CUDA context, its memory) alive:
    past twice the pool's size a kernel is timed at once instead, and every place is given back after the batch."""
    from verifier import runner

    problem = RELU.replace("dim = 1024", "dim = 1004")
    honest = [HONEST_RELU.replace("BLOCK_SIZE = 256", f"BLOCK_SIZE = {b}") for b in (256, 128, 64, 512)]
    assert len(set(honest)) == 4
    events: list[tuple[int, str]] = []
    vs = verify_batch(problem, honest, batch_timing=True, max_parallel=1, pool_size=1,  # a cap of 2
                      progress=lambda i, phase: events.append((i, phase)), lazy_baseline=True, **TIMED)
    assert all(v.ok and v.speedup > 0 for v in vs), [v.summary() for v in vs]
    phases = [p for _, p in events]
    # two parked, the third and fourth timed as they passed (before the batch's last correctness phase ended)
    assert phases.index("timing") < max(n for n, p in enumerate(phases) if p == "correctness"), events
    assert phases.count("timing") == 4 and runner._PARKED == 0
