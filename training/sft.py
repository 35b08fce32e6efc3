"""Supervised fine-tuning on verified samples: `python -m training.sft`.

    python -m training.sft [--config tiny|small|medium|FILE.json] [--model HF_DIR [--lora]] [--data A.jsonl ...]
                           [--feedback FEEDBACK.sqlite3] [--out DIR] [--max-steps N]

TRL's SFTTrainer on prompt-completion pairs: the prompt is the one shared prompt format
(`training.prompts`), the completion the plan + code response, and the loss is on the completion
only. With no --model, a small Llama-style decoder is built from the config and a byte-level BPE
tokenizer is trained on the data. Checkpoints are Hugging Face directories (`OUT/final` is what
`tritonrl suggest --model` and the language server load); a killed run resumes from its last
checkpoint; TensorBoard logs go to OUT/runs.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from . import checkpoints, prompts

CONFIGS = {
    # a few steps on CPU in well under 5 minutes (CI runs it)
    "tiny": dict(hidden=64, layers=2, heads=4, intermediate=176, vocab=1024, max_length=1536, max_steps=6,
                 batch=2, grad_accum=1, lr=3e-3, save_steps=3, data=["data/corpus_tiny.jsonl"]),
    # the embedded default's scale: fits the repo's 64 MiB budget in safetensors (fp16)
    "small": dict(hidden=384, layers=8, heads=6, intermediate=1024, vocab=4096, max_length=3072, max_steps=3000,
                  batch=8, grad_accum=2, lr=1e-3, save_steps=500, data=["data/corpus.jsonl"]),
    # the largest that still fits the 64 MiB budget in bf16 (about 26M parameters, 53 MB): more capacity for a
    # corpus that outgrew the small model's template retrieval
    "medium": dict(hidden=512, layers=8, heads=8, intermediate=1376, vocab=4096, max_length=3072, max_steps=3000,
                   batch=8, grad_accum=2, lr=7e-4, save_steps=500,
                   data=["data/corpus.jsonl", "data/corpus_single_ops.jsonl", "data/corpus_norm_dims.jsonl"]),
}


def load_config(name: str) -> dict:
    if name in CONFIGS:
        return dict(CONFIGS[name])
    return {**CONFIGS["tiny"], **json.loads(Path(name).read_text())}


def read_samples(paths: list[str], feedback_db: str | None = None) -> list[dict]:
    """Samples from JSONL files and, when given, the feedback store's accepted and verified
    suggestions; de-duplicated on (problem, response)."""
    rows = [json.loads(line) for p in paths for line in Path(p).read_text().splitlines() if line.strip()]
    if feedback_db:
        from .feedback import sft_samples

        rows += sft_samples(feedback_db)
    seen, out = set(), []
    for s in rows:
        key = (s["problem"], s["response"])
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def train_tokenizer(texts: list[str], vocab_size: int):
    """A byte-level BPE tokenizer trained on the corpus, as a Hugging Face fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|pad|>", "<|bos|>", "<|eos|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|bos|>", eos_token="<|eos|>",
                                   pad_token="<|pad|>")


def build_model(cfg: dict, tokenizer):
    from transformers import LlamaConfig, LlamaForCausalLM

    mc = LlamaConfig(vocab_size=len(tokenizer), hidden_size=cfg["hidden"], intermediate_size=cfg["intermediate"],
                     num_hidden_layers=cfg["layers"], num_attention_heads=cfg["heads"],
                     num_key_value_heads=cfg["heads"], max_position_embeddings=cfg["max_length"] + 512,
                     bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                     pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=True)
    return LlamaForCausalLM(mc)


def to_rows(samples: list[dict], tokenizer, form: str = prompts.PROMPT_FORM) -> list[dict]:
    """Prompt-completion pairs in the shared format (the completion ends with EOS), the problem in `form`."""
    return [{"prompt": prompts.render(prompts.build_messages(s["problem"], form), tokenizer),
             "completion": s["response"] + tokenizer.eos_token} for s in samples]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.sft")
    ap.add_argument("--config", default="tiny")
    ap.add_argument("--model", help="start from this Hugging Face checkpoint instead of a new small model")
    ap.add_argument("--lora", action="store_true",
                    help="train a LoRA adapter (peft) on --model (rank: the config's lora_r, default 16)")
    ap.add_argument("--data", nargs="*", help="JSONL corpora (default: the config's)")
    ap.add_argument("--feedback", help="also train on accepted, verified suggestions from this feedback store")
    ap.add_argument("--out", default="runs/sft")
    ap.add_argument("--max-steps", type=int)
    ap.add_argument("--time-limit", type=float, help="stop after this many minutes of training (saves, then exits 0)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    if args.max_steps:
        cfg["max_steps"] = args.max_steps
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.trainer_utils import get_last_checkpoint
    from trl import SFTConfig, SFTTrainer

    from .callbacks import TimeLimit

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    samples = read_samples(args.data or cfg["data"], args.feedback)
    if not samples:
        raise SystemExit("no training samples")
    tok_dir = out / "tokenizer"
    peft_config = None
    if args.model:
        tokenizer = AutoTokenizer.from_pretrained(args.model)
        # float32 master weights whatever the checkpoint's dtype (the shipped model is bf16): a bf16 weight
        # cannot hold a fine-tuning step of lr ~1e-5 (its spacing near 0.03 is ~1e-4); a GPU trains in bf16 autocast
        model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
        if args.lora:
            from .lora import lora_config

            peft_config = lora_config(cfg)  # the config's lora_r (default 16), alpha twice the rank
    else:
        if tok_dir.exists():  # resuming: the same tokenizer
            tokenizer = AutoTokenizer.from_pretrained(str(tok_dir))
        else:
            # the tokenizer learns the text the model reads: problems in their canonical (prose-free) form
            texts = ([prompts.canonical_problem(s["problem"]) for s in samples] + [s["response"] for s in samples]
                     + [prompts.user_message("")])
            tokenizer = train_tokenizer(texts, cfg["vocab"])
            tokenizer.save_pretrained(str(tok_dir))
        torch.manual_seed(args.seed)
        model = build_model(cfg, tokenizer)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    rows = to_rows(samples, tokenizer)
    sft = SFTConfig(output_dir=str(out), max_steps=cfg["max_steps"], per_device_train_batch_size=cfg["batch"],
                    gradient_accumulation_steps=cfg["grad_accum"], learning_rate=cfg["lr"], lr_scheduler_type="cosine",
                    warmup_steps=min(100, cfg["max_steps"] // 10), logging_steps=1, save_steps=cfg["save_steps"],
                    save_total_limit=2, report_to=["tensorboard"], completion_only_loss=True,
                    max_length=cfg["max_length"], seed=args.seed, use_cpu=not torch.cuda.is_available(),
                    bf16=torch.cuda.is_available(), dataloader_num_workers=0)
    os.environ.setdefault("TENSORBOARD_LOGGING_DIR", str(out / "runs"))
    trainer = SFTTrainer(model=model, args=sft, train_dataset=Dataset.from_list(rows), processing_class=tokenizer,
                         peft_config=peft_config,
                         callbacks=[TimeLimit(args.time_limit)] if args.time_limit else None)
    last = get_last_checkpoint(str(out)) if any(out.glob("checkpoint-*")) else None
    if last:
        print(f"resuming from {Path(last).name}", flush=True)
    trainer.train(resume_from_checkpoint=last)
    final = out / "final"
    trainer.save_model(str(final))
    tokenizer.save_pretrained(str(final))
    (final / "tritonrl.json").write_text(json.dumps({"stage": "sft", "config": args.config, "prompt": prompts.PROMPT_FORM,
                                                     "samples": len(samples),
                                                     "steps": trainer.state.global_step,
                                                     "resumed_from": Path(last).name if last else None}, indent=1))
    checkpoints.publish(out, final, stage="sft", step=trainer.state.global_step)
    print(f"saved {final} after {trainer.state.global_step} steps on {len(samples)} samples")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
