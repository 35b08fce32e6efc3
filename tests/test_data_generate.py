"""The generated corpus: reproducible, covers its families, verified, never a KernelBench copy."""
import json
import random
from collections import Counter

import pytest

from conftest import KERNELBENCH, ROOT
from training import prompts
from training.data.build import build_corpus
from training.data.families.basic import SCALAR_OPS, binary_scalar
from training.data.families.norms import batch_norm, group_norm
from training.data.generate import FAMILIES, KERNELBENCH_L1_MATCHES, MAKERS, V2_EVERY, Sample, generate, main
from training.data.novelty import NEAR_COPY, closest
from verifier import VerifyConfig, verify_batch
from verifier.problem import parse_problem, size_constants, with_constants
from verifier.static_check import check_candidate

needs_kb = pytest.mark.skipif(not KERNELBENCH.is_dir(), reason="../shared/kernelbench not present")
CPU = VerifyConfig(device="cpu", pool=True, trials=1, measure=False)

# A realistic bug per template (first pattern that applies): the verifier must reject the result.
BUGS = [
    ("for k0 in range(0, K, BLOCK_K)", "for k0 in range(0, K - BLOCK_K, BLOCK_K)"),  # matmul: last K tile lost
    ("mask = offs < n_cols\n", "mask = offs < n_cols - 1\n"),                        # row / norm: last column lost
    # argmax/argmin: where() arguments swapped (dropping the last element, as below, is caught only
    # when some row's extreme sits there: ~1 in 500 runs on the scaled-down shapes it is not)
    ("best_i = tl.where(take, i, best_i)", "best_i = tl.where(take, best_i, i)"),
    ("mask = pmask[:, None] & (r[None, :] < R)", "mask = pmask[:, None] & (r[None, :] < R - 1)"),  # dim reductions
    ("mask=offs < n_parts, other=0.0", "mask=offs < n_parts - 1, other=0.0"),          # loss: last partial lost
    ("b = tl.load(b_ptr + ", "b = tl.load(b_ptr + 1 + "),                             # broadcast operand shifted
    ("v = tl.load(x_ptr + offs,", "v = tl.load(x_ptr + offs + 1,"),                   # elementwise: off by one
    ("v = tl.load(x_ptr + base + offs,", "v = tl.load(x_ptr + base + offs + 1,"),     # group norm: output shifted
    ("mask = offs < inner\n", "mask = offs < inner - 1\n"),                          # channel norm: a position lost
]


def broken(candidate: str) -> str:
    for old, new in BUGS:
        if old in candidate:
            return candidate.replace(old, new, 1)
    raise AssertionError("no bug pattern applies to this candidate")


def one_per_maker(seed: int = 0) -> dict[str, Sample]:
    rng = random.Random(seed)
    return {m.__name__: m(rng, i) for i, (m, _, _) in enumerate(MAKERS)}


def test_reproducible_and_covering():
    a, b = generate(300, seed=3), generate(300, seed=3)
    assert [s.problem for s in a] == [s.problem for s in b] and [s.candidate for s in a] == [s.candidate for s in b]
    assert set(Counter(s.family for s in a)) == set(FAMILIES)
    assert len({s.problem for s in a}) == 300  # distinct problems
    assert [s.problem for s in generate(50, seed=3)] == [s.problem for s in a[:50]]  # a longer run extends it
    only = generate(20, seed=3, families=("loss", "norm"))
    assert {s.family for s in only} == {"loss", "norm"}
    with pytest.raises(ValueError, match="unknown families"):
        generate(5, families=("conv",))


def test_families_constant():
    assert {fam for _, fam, _ in MAKERS} == set(FAMILIES) == set(KERNELBENCH_L1_MATCHES)
    if KERNELBENCH.is_dir():
        for fam, stems in KERNELBENCH_L1_MATCHES.items():
            for stem in stems:
                assert (KERNELBENCH / "level1" / f"{stem}.py").is_file(), (fam, stem)


def test_every_candidate_passes_static_and_parses_as_a_response():
    for s in generate(300, seed=0):
        assert check_candidate(s.candidate, s.problem) == [], s.id
        r = prompts.parse_response(s.response)
        assert r.ok and r.code == s.candidate and r.plan == s.plan


def test_every_problem_makes_its_inputs():
    for s in generate(200, seed=4):
        ns: dict = {}
        exec(compile(s.problem, s.id, "exec"), ns)  # our own generated source, not model output
        assert ns["get_inputs"]() and isinstance(ns["get_init_inputs"](), list), s.id


def test_new_makers_leave_the_first_stream_alone():
    """Makers added later (MAKERS_V2) supply every V2_EVERY-th sample from their own stream: the samples
    of the original makers keep their ids and text (so the committed corpora stay reproducible)."""
    a = generate(100, seed=0)
    v2 = [s for s in a if s.id.split("-")[0] in ("bnorm", "gnorm", "frob", "bins")]
    assert [a.index(s) % V2_EVERY for s in v2] == [V2_EVERY - 1] * len(v2) == [V2_EVERY - 1] * (100 // V2_EVERY)
    assert {s.id.split("-")[0] for s in generate(300, seed=0)} >= {"bnorm", "gnorm", "frob", "bins"}
    assert {s.family for s in generate(30, seed=0, families=("norm",))} == {"norm"}
    only_v1 = generate(30, seed=0, families=("loss",))
    assert len(only_v1) == 30 and {s.family for s in only_v1} == {"loss"}


@pytest.mark.parametrize("maker", [batch_norm, group_norm])
def test_batch_and_group_norm_problems_hold_in_any_mode(maker):
    """Every style of the batch-norm (inference) and group-norm problems builds and runs; batch norm
    uses the running statistics whatever train/eval mode the module is in, and never updates them."""
    import torch

    rng = random.Random(0)
    styles = set()
    for i in range(24):
        s = maker(rng, i)
        styles.add(("F.batch_norm" in s.problem, "def train" in s.problem, "nn.GroupNorm" in s.problem,
                    "F.group_norm" in s.problem, "torch.sqrt(" in s.problem or "torch.rsqrt(" in s.problem))
        ns: dict = {}
        exec(compile(s.problem, s.id, "exec"), ns)  # our own generated source, not model output
        torch.manual_seed(i)
        model = ns["Model"](*ns["get_init_inputs"]())
        x = ns["get_inputs"]()
        state = {k: v.clone() for k, v in model.state_dict().items()}
        out = model(*x)
        model.train()
        assert torch.equal(model(*x), out), s.id
        model.eval()
        assert torch.equal(model(*x), out), s.id
        assert all(torch.equal(state[k], v) for k, v in model.state_dict().items()), s.id
        if maker is batch_norm:
            stats = [b for b in model.buffers() if b.is_floating_point()]  # running mean and var
            assert len(stats) == 2 and all(((b != 0) & (b != 1)).all() for b in stats), "drawn, not the 0/1 defaults"
    assert len(styles) >= 3, styles


def test_binary_scalar_kernels_compute_what_their_problems_do():
    """Every scalar op, every torch form, inline and module-held scalars: the reference agrees with the
    candidate's Triton expression (evaluated with torch; the verifier checks one sample end to end)."""
    import re

    import torch

    tl_ns = {"maximum": lambda a, b: torch.clamp(a, min=b), "minimum": lambda a, b: torch.clamp(a, max=b)}
    for op, (forms, *_rest) in SCALAR_OPS.items():
        seen = set()
        for seed in range(60):
            if len(seen) == 2 * len(forms):
                break
            s = binary_scalar(random.Random(seed), seed, op=op)
            ns: dict = {}
            small = with_constants(s.problem, {c.name: 16 for c in size_constants(s.problem)})
            exec(compile(small, s.id, "exec"), ns)  # our own generated source, not model output
            init = ns["get_init_inputs"]()
            model = ns["Model"](*init)
            (x,) = ns["get_inputs"]()
            expr = re.search(r"\n    v = (.+)\n    tl.store", s.candidate).group(1)
            env = {"v": x.float(), "s": init[0] if init else None, "tl": type("tl", (), tl_ns)}
            want = eval(expr, env)  # noqa: S307 - the generator's own kernel expression
            assert torch.allclose(model(x).float(), want, atol=1e-2 if x.dtype == torch.half else 1e-6), s.problem
            scalar = r"(?:self\.\w+(?:, dtype=x\.dtype, device=x\.device)?|-?[\d.]+)"
            form = [f for f in forms if re.search(r"return " + re.escape(f).replace(r"\{s\}", scalar) + "\n", s.problem)]
            assert len(form) == 1, (forms, s.problem)
            seen.add((form[0], bool(init)))
        assert {f for f, _ in seen} == set(forms) and {h for _, h in seen} == {True, False}, (op, seen)


@pytest.mark.parametrize("maker", [m.__name__ for m, _, _ in MAKERS])
def test_problem_loads_in_kernelbench_format(maker):
    import torch

    s = one_per_maker(1)[maker]
    parse_problem(s.problem)
    assert any(c.scalable for c in size_constants(s.problem)), "sizes must be module-level constants"
    ns: dict = {}
    exec(compile(s.problem, s.id, "exec"), ns)  # our own generated source, not model output
    torch.manual_seed(0)
    model = ns["Model"](*ns["get_init_inputs"]())
    out = model(*ns["get_inputs"]())
    assert isinstance(out, torch.Tensor) and out.numel() > 0


@pytest.mark.parametrize("maker", [m.__name__ for m, _, _ in MAKERS])
def test_solution_verifies_and_a_broken_one_is_rejected(maker):
    s = one_per_maker(2)[maker]
    good, bad = verify_batch(s.problem, [s.candidate, broken(s.candidate)], CPU, per_tensor=1 << 13, total=1 << 14)
    assert good.ok, (s.id, good.summary())
    assert not bad.ok and bad.stage in ("correctness", "sandbox"), (s.id, bad.summary())


@needs_kb
def test_novelty_guard_rejects_kernelbench_copies(tmp_path):
    kb = (KERNELBENCH / "level1" / "19_ReLU.py").read_text()
    copy = kb.replace("Simple model", "A model").replace("batch_size = ", "batch_size = 3 + ")
    assert closest(copy, KERNELBENCH)[0] >= NEAR_COPY
    ok = generate(1, seed=0, families=("elementwise",))[0]
    stolen = Sample("kb-00000", "elementwise", copy, ok.plan, ok.candidate)
    rep = build_corpus([stolen, ok], tmp_path / "c.jsonl", verify=False)
    assert [r[0] for r in rep.rejected] == ["kb-00000"] and "novelty" in rep.rejected[0][2]
    rows = [json.loads(x) for x in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [ok.id] and rows[0]["novelty"]["score"] < NEAR_COPY
    scores = [closest(s.problem, KERNELBENCH)[0] for s in generate(60, seed=0)]
    assert sum(x >= NEAR_COPY for x in scores) <= 3, sorted(scores)[-5:]  # the generator rarely comes close


@needs_kb
def test_build_keeps_verified_samples_and_reports_failures(tmp_path):
    a, b = generate(2, seed=5, families=("row",))
    bad = Sample(b.id, b.family, b.problem, b.plan, broken(b.candidate))
    out = tmp_path / "c.jsonl"
    rep = build_corpus([a, bad], out, parallel=2, config=CPU)
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [a.id]
    assert rows[0]["verdict"]["ok"] and rows[0]["verdict"]["trials"]["passed"] >= 1
    assert rows[0]["response"] == a.response
    assert [r[0] for r in rep.rejected] == [b.id] and rep.rejected[0][2].startswith("correctness/")
    assert "1/2 samples written" in rep.summary() and "rejected" in rep.summary()
    rep2 = build_corpus([a], out, resume=True, config=CPU)  # resumes without verifying again
    assert rep2.resumed == 1 and rep2.rejected == [] and out.read_text().count("\n") == 1
    # a template change: the committed line no longer matches what the generator writes -> verified again
    row = json.loads(out.read_text())
    out.write_text(json.dumps({**row, "candidate": broken(a.candidate), "verdict": {"ok": True}}) + "\n")
    rep3 = build_corpus([a], out, resume=True, config=CPU)
    (row3,) = [json.loads(x) for x in out.read_text().splitlines()]
    assert (rep3.resumed, rep3.stale) == (0, 1) and "1 stale" in rep3.summary()
    assert row3["candidate"] == a.candidate and row3["verdict"]["ok"] and row3["verdict"]["trials"]["run"] >= 1


@needs_kb
def test_cli_writes_jsonl_and_rejects_bad_arguments(tmp_path, capsys):
    out = tmp_path / "raw.jsonl"
    assert main(["--n", "4", "--seed", "2", "--out", str(out), "--no-verify"]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) <= 4 and all({"id", "family", "problem", "plan", "candidate", "response", "novelty"} <= set(r)
                                  for r in rows)
    with pytest.raises(SystemExit) as e:
        main(["--n", "4", "--out", str(out), "--families", "conv2d"])
    assert e.value.code == 2 and "unknown families" in capsys.readouterr().err
    assert main(["--n", "2", "--out", str(out), "--no-verify", "--kernelbench", str(tmp_path)]) == 2
    assert "not a KernelBench checkout" in capsys.readouterr().err
    # --refresh: only the samples already in the file, however large --n
    assert main(["--n", "4", "--seed", "2", "--out", str(out), "--no-verify"]) == 0
    ids = [json.loads(x)["id"] for x in out.read_text().splitlines()]
    assert main(["--n", "12", "--seed", "2", "--out", str(out), "--no-verify", "--refresh"]) == 0
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == ids
    assert main(["--n", "4", "--out", str(tmp_path / "none.jsonl"), "--no-verify", "--refresh"]) == 2
    assert "--refresh needs a corpus" in capsys.readouterr().err


@pytest.mark.parametrize("name,n,seed,table", [("corpus_tiny.jsonl", 112, 1, "main"), ("corpus.jsonl", 3000, 0, "main"),
                                               ("corpus_single_ops.jsonl", 600, 0, "single-ops"),
                                               ("corpus_norm_dims.jsonl", 400, 0, "norm-dims")])
def test_committed_corpus(name, n, seed, table):
    path = ROOT / "data" / name
    if not path.exists():
        pytest.skip(f"data/{name} not generated")
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    gen = {s.id: s for s in generate(n, seed=seed, table=table)}  # the generator still writes every committed sample
    assert all(r["id"] in gen and (gen[r["id"]].problem, gen[r["id"]].plan, gen[r["id"]].candidate) ==
               (r["problem"], r["plan"], r["candidate"]) for r in rows)
    assert len({r["id"] for r in rows}) == len(rows) and len({r["problem"] for r in rows}) == len(rows)
    assert all(r["verdict"]["ok"] for r in rows), "every committed sample passed the verifier"
    assert all(r["novelty"]["score"] < NEAR_COPY for r in rows)
    if name == "corpus_tiny.jsonl":
        assert set(r["family"] for r in rows) == set(FAMILIES) and 64 <= len(rows) <= 100
    if KERNELBENCH.is_dir():  # the recorded scores are the real ones
        for r in rows[:: max(1, len(rows) // 15)]:
            assert closest(r["problem"], KERNELBENCH)[0] == pytest.approx(r["novelty"]["score"], abs=1e-3)
    assert path.stat().st_size < 20 << 20


def test_every_dot_is_fp32_accurate_on_a_gpu():
    """The interpreter's tl.dot is exact, a GPU's plain fp32 tl.dot is TF32 and fails the 1e-2 tolerance on
    randn GEMMs (benchmarks/results/dot_precision_h200.md): every generated dot must ask for ieee or tf32x3."""
    import re

    dots = [call for s in generate(300, seed=0) for call in re.findall(r"tl\.dot\(([^\n]*)\)", s.candidate)]
    assert dots and all('input_precision="tf32x3"' in c or 'input_precision="ieee"' in c for c in dots), dots[:3]


def test_the_committed_rl_prompt_set_never_overlaps_the_sft_corpora():
    """benchmarks/rl_prompts_h200.jsonl holds the development set (its held-out split) that SFT runs are chosen
    on: growing a corpus must never put one of its problems into SFT data."""
    prompts = [json.loads(x) for x in (ROOT / "benchmarks" / "rl_prompts_h200.jsonl").read_text().splitlines()]
    held = [r for r in prompts if r["split"] == "heldout"]
    assert len(held) == 32 and len(prompts) == 432
    sft = {json.loads(x)["problem"] for name in ("corpus.jsonl", "corpus_tiny.jsonl", "corpus_single_ops.jsonl",
                                                 "corpus_norm_dims.jsonl")
           for x in (ROOT / "data" / name).read_text().splitlines() if x.strip()}
    assert not [r["pid"] for r in held if r["problem"] in sft]


def test_single_ops_table_is_its_own_stream_of_single_activations():
    """`--table single-ops`: one activation per module in many spellings, from a stream of its own (the main
    streams, and the committed corpora with them, do not move); every candidate is clean, and verifies, and a
    bug in it is caught."""
    a = generate(60, seed=0, table="single-ops")
    assert [s.problem for s in a] == [s.problem for s in generate(60, seed=0, table="single-ops")]
    assert {s.family for s in a} == {"elementwise"} and all(s.id.startswith("act-") for s in a)
    assert len({s.problem for s in a}) == 60
    assert not {s.problem for s in a} & {s.problem for s in generate(300, seed=0)}
    spellings = {s.problem.split("def forward")[1].split("return ")[1].split("\n")[0] for s in a}
    assert any(x.startswith("torch.nn.functional.") for x in spellings) and "self.act(x)" in spellings
    assert any("self." in x and x != "self.act(x)" for x in spellings)  # a parameter given at construction
    ranks = set()
    for s in a:
        assert check_candidate(s.candidate, s.problem) == [], s.id
        r = prompts.parse_response(s.response)
        assert r.ok and r.code == s.candidate and r.plan == s.plan
        ns: dict = {}
        exec(compile(s.problem, s.id, "exec"), ns)  # our own generated source, not model output
        ns["Model"](*ns["get_init_inputs"]())  # (get_inputs is not called: some inputs are ~1 GiB)
        ranks.add(s.problem.split("torch.rand")[1].split(")")[0].count(",") + 1)
    assert len(ranks) >= 3, ranks  # 1-4 dimensions
    with pytest.raises(ValueError, match="unknown table"):
        generate(5, table="conv")
    picked = [next(s for s in a if "self." in s.problem.split("return ")[1].split("\n")[0] and "self.act" not in
                   s.problem), next(s for s in a if "self.act" in s.problem), a[0]]
    verdicts = verify_batch(picked[0].problem, [picked[0].candidate, broken(picked[0].candidate)], CPU)
    assert verdicts[0].ok and not verdicts[1].ok, [v.summary() for v in verdicts]
    for s in picked[1:]:
        v = verify_batch(s.problem, [s.candidate], CPU)[0]
        assert v.ok, (s.id, v.summary())


def test_norm_dims_table_normalises_channels_and_long_rows_with_loop_kernels():
    """`--table norm-dims`: norms over dim=1 of 3-D/4-D tensors and over long or multi-dim rows, from a stream of its
    own; every candidate is clean and loops over the reduced axis (no whole-row block), verifies, and a bug in it
    is caught."""
    a = generate(40, seed=0, table="norm-dims")
    assert [s.problem for s in a] == [s.problem for s in generate(40, seed=0, table="norm-dims")]
    assert {s.family for s in a} == {"norm"} and {s.id[:6] for s in a} == {"cnorm-", "lnorm-"}
    assert not {s.problem for s in a} & {s.problem for s in generate(300, seed=0)}
    bodies = " ".join(s.problem.split("def forward")[1].split("\n\n")[0] for s in a)
    assert "dim=1, keepdim=True" in bodies and "self.ln(x)" in bodies and "F.normalize" in bodies
    for s in a:
        assert check_candidate(s.candidate, s.problem) == [], s.id
        assert "for c in range(0, C)" in s.candidate or "for start in range(0, n_cols, BLOCK)" in s.candidate
        r = prompts.parse_response(s.response)
        assert r.ok and r.code == s.candidate and r.plan == s.plan
        ns: dict = {}
        exec(compile(s.problem, s.id, "exec"), ns)  # our own generated source, not model output
        ns["Model"](*ns["get_init_inputs"]())
    picked = [next(s for s in a if s.id.startswith("cnorm-") and "self.weight" in s.problem),
              next(s for s in a if "self.ln(x)" in s.problem), next(s for s in a if "mean(torch.abs" in s.problem
                                                                    or "abs().mean" in s.problem)]
    verdicts = verify_batch(picked[0].problem, [picked[0].candidate, broken(picked[0].candidate)], CPU)
    assert verdicts[0].ok and not verdicts[1].ok, [v.summary() for v in verdicts]
    for s in picked[1:]:
        v = verify_batch(s.problem, [s.candidate], CPU)[0]
        assert v.ok, (s.id, v.summary())
