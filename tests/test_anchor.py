"""training.anchor: the SFT anchor of GRPO (the policy's NLL on supervised samples, or its KL from the reference
there, added to the RL loss)."""
import json

import pytest
import torch
import torch.nn.functional as F

from conftest import ROOT
from training import prompts
from training.anchor import AnchorBatches, completion_kl, completion_nll, labelled_logp

ROWS = [json.loads(x) for x in (ROOT / "data" / "corpus_tiny.jsonl").read_text().splitlines()[:5]]


@pytest.fixture(scope="module")
def tok(tiny_ckpt):
    from transformers import AutoTokenizer

    t = AutoTokenizer.from_pretrained(str(tiny_ckpt))
    t.pad_token = t.pad_token or t.eos_token
    return t


def test_batches_label_only_the_completion_and_cycle_through_every_sample(tok):
    a = AnchorBatches(ROWS, tok, batch=2, seed=3)
    seen = []
    for _ in range(5):  # 10 rows drawn: every one of the 5 samples twice, in two seeded passes
        ids, mask, labels = a.next()
        assert ids.shape == mask.shape == labels.shape and ids.shape[0] == 2
        for i in range(2):
            n = int(mask[i].sum())
            assert (labels[i, n:] == -100).all() and (mask[i, n:] == 0).all()  # padding: no loss
            done = labels[i, :n] != -100
            k = int(done.float().argmax())  # the first labelled token: the prompt ends there
            text = tok.decode(ids[i, :k])
            seen.append(text)
            assert (labels[i, k:n] == ids[i, k:n]).all() and done[k:].all() and not done[:k].any()
            assert ids[i, n - 1].item() == tok.eos_token_id  # the completion ends with EOS, as in training.sft
    rendered = [tok.decode(tok(prompts.render(prompts.build_messages(r["problem"]), tok),
                               add_special_tokens=False)["input_ids"]) for r in ROWS]
    assert sorted(seen) == sorted(rendered * 2)
    b = AnchorBatches(ROWS, tok, batch=2, seed=3)
    assert torch.equal(b.next()[0], AnchorBatches(ROWS, tok, batch=2, seed=3).next()[0])  # seeded order


def test_nll_is_the_mean_over_completion_tokens(tiny_ckpt, tok):
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(tiny_ckpt))
    ids, mask, labels = AnchorBatches(ROWS[:3], tok, batch=3, seed=0).next()
    got = completion_nll(model, ids, mask, labels)
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(3):  # one sample at a time, unpadded
            n = int(mask[i].sum())
            logits = model(input_ids=ids[i:i + 1, :n]).logits[0, :-1]
            t = labels[i, 1:n]
            keep = t != -100
            total += F.cross_entropy(logits[keep], t[keep], reduction="sum").item()
            count += int(keep.sum())
    assert got.item() == pytest.approx(total / count, rel=1e-4)
    got.backward()  # a gradient to add to GRPO's
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())


def test_kl_is_the_reverse_kl_over_the_whole_vocabulary_at_completion_tokens(tiny_ckpt, tok):
    from transformers import AutoModelForCausalLM

    ref = AutoModelForCausalLM.from_pretrained(str(tiny_ckpt)).eval()
    model = AutoModelForCausalLM.from_pretrained(str(tiny_ckpt))
    ids, mask, labels = AnchorBatches(ROWS[:3], tok, batch=3, seed=0).next()
    with torch.no_grad():
        ref_logp = labelled_logp(ref(input_ids=ids, attention_mask=mask).logits, labels)
    assert ref_logp.shape == (int((labels[:, 1:] != -100).sum()), ref.config.vocab_size)
    assert completion_kl(model, ids, mask, labels, ref_logp).item() == pytest.approx(0.0, abs=1e-6)  # same weights

    torch.manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.02 * torch.randn_like(p))
    got = completion_kl(model, ids, mask, labels, ref_logp)
    # independently: KL(policy || reference) per labelled position, one unpadded sample at a time
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(3):
            n = int(mask[i].sum())
            keep = labels[i, 1:n] != -100
            lp = model(input_ids=ids[i:i + 1, :n]).logits[0, :-1][keep].log_softmax(-1)
            lr = ref(input_ids=ids[i:i + 1, :n]).logits[0, :-1][keep].log_softmax(-1)
            total += F.kl_div(lr, lp, log_target=True, reduction="sum").item()  # sum p (log p - log p_ref)
            count += int(keep.sum())
    assert got.item() > 0 and got.item() == pytest.approx(total / count, rel=1e-4)
    got.backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())


def test_no_usable_samples_is_a_clear_error(tok):
    with pytest.raises(ValueError, match="no SFT anchor samples"):
        AnchorBatches([], tok)
    with pytest.raises(ValueError, match="no SFT anchor samples"):
        AnchorBatches(ROWS, tok, max_len=4)  # every prompt longer than max_len
