"""benchmarks/rl_delta.py: an RL final packed as its bf16 update and rebuilt in float32 on top of its init."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("rl_delta", ROOT / "benchmarks" / "rl_delta.py")
rl_delta = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rl_delta)


def _load(path) -> dict:
    return AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32).state_dict()


def test_pack_then_unpack_rebuilds_the_final_to_bf16_precision_of_the_update(tiny_ckpt, tmp_path):
    model = AutoModelForCausalLM.from_pretrained(str(tiny_ckpt), dtype=torch.float32)
    torch.manual_seed(1)
    with torch.no_grad():  # an update far below bf16's resolution of the weights themselves
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 1e-5)
    final = tmp_path / "final"
    model.save_pretrained(str(final))
    (final / "tritonrl.json").write_text('{"stage": "rl"}')
    from transformers import AutoTokenizer

    AutoTokenizer.from_pretrained(str(tiny_ckpt)).save_pretrained(str(final))

    rl_delta.main(["pack", "--final", str(final), "--init", str(tiny_ckpt), "--out", str(tmp_path / "packed")])
    rl_delta.main(["unpack", "--delta", str(tmp_path / "packed"), "--init", str(tiny_ckpt),
                   "--out", str(tmp_path / "rebuilt")])

    want, got, init = _load(final), _load(tmp_path / "rebuilt"), _load(tiny_ckpt)
    assert set(want) == set(got)
    for k in want:
        update = (want[k] - init[k]).abs().max()
        assert update > 0, k
        # bf16 keeps 8 significant bits of the update; a tied tensor counted twice would be off by 100%
        assert (want[k] - got[k]).abs().max() <= update * 2 ** -7, k
    assert (tmp_path / "rebuilt" / "tritonrl.json").read_text() == '{"stage": "rl"}'
    # what a bf16 final would have been: most of this update rounded away
    lost = max(((want[k].to(torch.bfloat16).float() - want[k]).abs().max() / (want[k] - init[k]).abs().max()).item()
               for k in want)
    assert lost > 0.1


def test_merge_puts_a_lora_adapter_into_its_init(tiny_ckpt, tmp_path):
    from peft import LoraConfig, get_peft_model

    model = get_peft_model(AutoModelForCausalLM.from_pretrained(str(tiny_ckpt), dtype=torch.float32),
                           LoraConfig(r=2, lora_alpha=4, target_modules="all-linear", task_type="CAUSAL_LM"))
    torch.manual_seed(2)
    with torch.no_grad():  # B starts at zero: give the adapter an update
        for n, p in model.named_parameters():
            if "lora_B" in n:
                p.add_(torch.randn_like(p) * 1e-2)
    model.save_pretrained(str(tmp_path / "run" / "final_adapter"))
    want = {k: v.clone() for k, v in model.merge_and_unload().state_dict().items()}
    (tmp_path / "run" / "tritonrl.json").write_text('{"stage": "rl", "steps": 3}')

    rl_delta.main(["merge", "--adapter", str(tmp_path / "run" / "final_adapter"), "--init", str(tiny_ckpt),
                   "--out", str(tmp_path / "merged")])
    got, init = _load(tmp_path / "merged"), _load(tiny_ckpt)
    assert set(got) == set(want)
    assert all(torch.allclose(got[k], want[k], atol=1e-6) for k in want)
    assert any(not torch.equal(got[k], init[k]) for k in want)
    assert (tmp_path / "merged" / "tritonrl.json").read_text() == '{"stage": "rl", "steps": 3}'
    assert (tmp_path / "merged" / "tokenizer.json").exists()
