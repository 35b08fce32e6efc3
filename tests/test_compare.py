import torch

from verifier.compare import compare


def test_tolerances_and_messages():
    r = torch.linspace(-3, 3, 1000)
    assert compare(r, r.clone())[0]
    assert compare(r, r + 5e-3)[0]                       # inside fp32's 1e-2
    ok, msg, a, _ = compare(r, r + 0.5)
    assert not ok and "1000 of 1000" in msg and abs(a - 0.5) < 1e-6
    assert not compare(r, r[:-1])[0] and "shape" in compare(r, r[:-1])[1]
    assert "dtype" in compare(r, r.double())[1]
    assert not compare(r, r + 5e-3, atol=1e-4, rtol=1e-4)[0]


def test_nan_inf_and_structure():
    r = torch.tensor([1.0, float("nan"), float("inf")])
    assert compare(r, r.clone())[0]
    assert not compare(r, torch.tensor([1.0, 2.0, float("inf")]))[0]
    assert not compare(r, torch.tensor([1.0, float("nan"), -float("inf")]))[0]
    assert compare((r, r), [r.clone(), r.clone()])[0]
    assert not compare((r, r), [r.clone()])[0]
    assert not compare(torch.tensor([1, 2]), torch.tensor([1, 3]))[0]


def test_chunked_matches_whole(monkeypatch):
    import verifier.compare as C

    monkeypatch.setattr(C, "CHUNK", 7)
    r = torch.randn(100)
    o = r.clone()
    o[93] += 1
    ok, msg, a, _ = compare(r, o)
    assert not ok and "1 of 100" in msg and abs(a - 1) < 1e-5


def test_integers_compare_exactly_and_complex_values_by_both_parts():
    """Integers went through float32 (int64 sums past 2**24 off by one compared equal) and complex values through a
    real cast (the imaginary part was dropped)."""
    big = torch.tensor([2**40, 5, -(2**31) - 3], dtype=torch.int64)
    assert compare(big, big.clone())[0]
    assert not compare(big, big + torch.tensor([1, 0, 0]))[0]
    i32 = torch.tensor([2**25 + 1], dtype=torch.int32)
    assert not compare(i32, i32 - 1)[0]
    assert not compare(torch.tensor([True, False]), torch.tensor([True, True]))[0]
    z = torch.tensor([1 + 1j, 2 - 1j, float("nan") * 1j], dtype=torch.complex64)
    assert compare(z, z.clone())[0] and compare(z, z + 1e-4)[0]
    assert not compare(z, torch.complex(z.real, torch.zeros(3)))[0]
    assert not compare(z, z.conj().resolve_conj())[0]


def test_the_absolute_tolerance_is_at_most_rtol_times_the_largest_expected_value():
    """Round 5: where every expected value is small (softmax over long rows of torch.rand, about 1/dim each), atol=1e-2
    passed any answer: a uniform 1/dim, or zeros. atol is capped at rtol x max|expected|; ordinary outputs (max >= 1
    with KernelBench's 1e-2/1e-2) are compared as before, and an explicit rtol=0 keeps a pure absolute tolerance."""
    torch.manual_seed(0)
    p = torch.softmax(torch.rand(4, 8192), dim=-1)
    assert not compare(p, torch.full_like(p, 1 / 8192))[0]
    assert not compare(p, torch.zeros_like(p))[0]
    assert "capped" in compare(p, torch.zeros_like(p))[1]
    assert compare(p, p * (1 + 1e-4))[0]                                 # honest rounding still passes
    assert compare(p, torch.zeros_like(p), atol=1e-2, rtol=0.0)[0]       # pure atol, as asked
    r = torch.linspace(-3, 3, 1000)
    assert compare(r, r + 5e-3)[0]                                       # unchanged for outputs of ordinary size
    z = torch.zeros(10)
    assert compare(z, z.clone())[0] and not compare(z, z + 1e-3)[0]


def test_an_output_without_values_is_a_mismatch_not_an_exception():
    """Round 5: a meta (or sparse) output made compare raise, which ended the whole batch's verification."""
    r = torch.randn(4, 4)
    for o in (torch.empty(4, 4, device="meta"), r.to_sparse()):
        ok, msg, _, _ = compare(r, o)
        assert not ok and "not a dense tensor" in msg
