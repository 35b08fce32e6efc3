"""benchmarks/update_noise.py --save-noise: the start plus a random update of the RL update's per-tensor size,
saved as a checkpoint that heldout_eval can load."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("update_noise", ROOT / "benchmarks" / "update_noise.py")
update_noise = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(update_noise)


def test_saved_noise_has_the_rl_updates_size_per_tensor_and_random_signs(tiny_ckpt, tmp_path, capsys):
    import shutil

    tiny_ckpt = shutil.copytree(tiny_ckpt, tmp_path / "init")  # a copy: the fixture is shared with other tests
    model = AutoModelForCausalLM.from_pretrained(str(tiny_ckpt), dtype=torch.float32)
    torch.manual_seed(1)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 1e-3)
    rl = tmp_path / "rl"
    model.save_pretrained(str(rl))
    AutoTokenizer.from_pretrained(str(tiny_ckpt)).save_pretrained(str(rl))
    (Path(tiny_ckpt) / "tritonrl.json").write_text(json.dumps({"prompt": "canonical"}))
    noise = tmp_path / "noise"
    assert update_noise.main(["--init", str(tiny_ckpt), "--rl", str(rl), "--n", "2", "--save-noise", str(noise),
                              "--corpus", str(ROOT / "data" / "corpus_tiny.jsonl")]) == 0
    assert "start + random update of the RL size" in capsys.readouterr().out
    assert json.loads((noise / "tritonrl.json").read_text()) == {"prompt": "canonical"}
    AutoTokenizer.from_pretrained(str(noise))  # a whole checkpoint: weights, tokenizer, the prompt form
    start = AutoModelForCausalLM.from_pretrained(str(tiny_ckpt), dtype=torch.float32).state_dict()
    want = AutoModelForCausalLM.from_pretrained(str(rl), dtype=torch.float32).state_dict()
    got = AutoModelForCausalLM.from_pretrained(str(noise), dtype=torch.float32).state_dict()
    for k in start:
        d_rl, d_noise = want[k] - start[k], got[k] - start[k]
        # every weight moved by the RL update's mean absolute size, with a random sign: not the RL direction
        assert torch.allclose(d_noise.abs(), d_rl.abs().mean().expand_as(d_noise), rtol=1e-2, atol=1e-6)
        if d_noise.numel() > 100:
            assert 0.4 < (d_noise > 0).float().mean() < 0.6
            assert abs(torch.nn.functional.cosine_similarity(d_noise.flatten(), d_rl.flatten(), dim=0)) < 0.2
