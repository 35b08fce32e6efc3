"""An RL final as its update: a device call brings back `final - init` in bf16 (delta.safetensors, 52 MB for the
shipped model, like a bf16 final, but a bf16 cast of the final rounded away part of an update this small) and this
machine rebuilds init + delta in float32, exact to 2^-8 of the update.

    python benchmarks/rl_delta.py pack --final /dev/shm/rl_hrd/final --init training/default_model --out DIR
    python benchmarks/rl_delta.py unpack --delta DIR --init training/default_model --out DIR2

A LoRA run's update is its adapter (a few MB, comes back as is, with the final's tritonrl.json beside it):

    python benchmarks/rl_delta.py merge --adapter DIR/final_adapter --init training/default_model --out DIR2
"""
from __future__ import annotations

import argparse
import shutil
from pathlib import Path

SIDE_FILES = ("tritonrl.json", "trainer_state.json", "generation_config.json")


def _load_fp32(path: str):
    """A checkpoint's model in float32."""
    import torch
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)


def _copy_side(src: Path, dst: Path) -> None:
    from transformers import AutoTokenizer

    AutoTokenizer.from_pretrained(str(src)).save_pretrained(str(dst))
    for f in SIDE_FILES:
        if (src / f).exists():
            shutil.copy(src / f, dst / f)


def pack(final: str, init: str, out: str) -> Path:
    """Write (final - init) in bf16 as out/delta.safetensors, with the final's config, tokenizer and metadata."""
    import torch
    from safetensors.torch import save_file

    m, base = _load_fp32(final), _load_fp32(init).state_dict()
    dst = Path(out)
    dst.mkdir(parents=True, exist_ok=True)
    # each difference is a new tensor: a tied embedding / lm_head is saved under both names, no shared storage
    save_file({k: (v - base[k]).to(torch.bfloat16) for k, v in m.state_dict().items()},
              str(dst / "delta.safetensors"))
    m.config.save_pretrained(str(dst))
    _copy_side(Path(final), dst)
    return dst


def unpack(delta_dir: str, init: str, out: str) -> Path:
    """Write init + delta in float32, with the delta directory's config, tokenizer and metadata, to `out`."""
    import torch
    from safetensors.torch import load_file

    model = _load_fp32(init)
    delta = load_file(str(Path(delta_dir) / "delta.safetensors"))
    state = model.state_dict()
    missing = sorted(set(state) - set(delta))
    if missing:
        raise SystemExit(f"rl_delta: the delta lacks {len(missing)} tensors of the init, e.g. {missing[:3]}")
    done: set[int] = set()  # a tied embedding / lm_head is one tensor under two names: add its delta once
    with torch.no_grad():
        for k, v in state.items():
            if v.data_ptr() not in done:
                v.add_(delta[k].to(torch.float32))
                done.add(v.data_ptr())
    dst = Path(out)
    model.save_pretrained(str(dst), safe_serialization=True)
    _copy_side(Path(delta_dir), dst)
    return dst


def merge(adapter: str, init: str, out: str) -> Path:
    """Write init with a LoRA adapter merged in, float32, to `out` (the tokenizer from init; tritonrl.json from the
    adapter's directory or the one above it, where the call script puts the final's)."""
    from peft import PeftModel

    model = PeftModel.from_pretrained(_load_fp32(init), adapter).merge_and_unload()
    dst = Path(out)
    model.save_pretrained(str(dst), safe_serialization=True)
    _copy_side(Path(init), dst)
    for side in (Path(adapter), Path(adapter).parent):
        if (side / "tritonrl.json").exists():
            shutil.copy(side / "tritonrl.json", dst / "tritonrl.json")
            break
    return dst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="final - init -> OUT/delta.safetensors")
    p.add_argument("--final", required=True)
    p.add_argument("--init", required=True, help="the checkpoint the RL run started from")
    p.add_argument("--out", required=True)
    u = sub.add_parser("unpack", help="init + DELTA/delta.safetensors -> OUT (float32)")
    u.add_argument("--delta", required=True, help="a directory `pack` wrote")
    u.add_argument("--init", required=True, help="the checkpoint the RL run started from")
    u.add_argument("--out", required=True)
    m = sub.add_parser("merge", help="init + a LoRA adapter -> OUT (float32)")
    m.add_argument("--adapter", required=True, help="a LoRA run's final_adapter/")
    m.add_argument("--init", required=True, help="the checkpoint the RL run started from")
    m.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    run = {"pack": lambda: pack(a.final, a.init, a.out), "unpack": lambda: unpack(a.delta, a.init, a.out),
           "merge": lambda: merge(a.adapter, a.init, a.out)}
    dst = run[a.cmd]()
    print(f"rl_delta {a.cmd}: wrote {dst}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
