"""Rebuild an RL final that a device call brought back as its update (benchmarks/rl_h200_call.sh packs
`final - init` in bf16 as delta.safetensors): out = init (float32) + delta, saved in float32.

    python benchmarks/rl_unpack.py --init training/default_model --delta .scratch/rl_hrd --out .scratch/rl_hrd_final
"""
from __future__ import annotations

import argparse
import shutil
from pathlib import Path


def unpack(init: str, delta_dir: str, out: str) -> Path:
    """Write init + delta (float32) with the delta directory's config, tokenizer and tritonrl.json to `out`."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(init, dtype=torch.float32)
    delta = load_file(str(Path(delta_dir) / "delta.safetensors"))
    state = model.state_dict()
    missing = sorted(set(state) - set(delta))
    if missing:
        raise SystemExit(f"rl_unpack: the delta lacks {len(missing)} tensors of the init, e.g. {missing[:3]}")
    with torch.no_grad():
        for k, v in state.items():
            v.add_(delta[k].to(torch.float32))  # tied tensors share storage: their (equal) delta is added once each
    # a tied embedding / lm_head appears twice in the state dict and got its delta twice: undo the repeat
    seen: dict[int, str] = {}
    with torch.no_grad():
        for k, v in state.items():
            ptr = v.data_ptr()
            if ptr in seen:
                v.sub_(delta[k].to(torch.float32))
            seen[ptr] = k
    dst = Path(out)
    model.save_pretrained(dst, safe_serialization=True)
    AutoTokenizer.from_pretrained(delta_dir).save_pretrained(dst)
    for f in ("tritonrl.json", "trainer_state.json", "generation_config.json"):
        if (Path(delta_dir) / f).exists():
            shutil.copy(Path(delta_dir) / f, dst / f)
    return dst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--init", required=True, help="the checkpoint the RL run started from")
    ap.add_argument("--delta", required=True, help="the packed run directory holding delta.safetensors")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    print("rl_unpack: wrote", unpack(a.init, a.delta, a.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
