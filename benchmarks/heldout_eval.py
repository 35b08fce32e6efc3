"""Held-out correct rate of a checkpoint on a GRPO run's held-out split, exactly as `training.rl` measures it.

    python benchmarks/heldout_eval.py --model CKPT [--prompts RUN/prompts.jsonl] [--n 4] [--seed 0] \
        [--max-new-tokens 1024] [--temperature 1.0] [--jobs 14] [--device auto] [--split heldout|train] \
        [--limit N] [--out FILE.json] [--samples FILE.jsonl] [--rows-per-pass K] [--append-to RUN_DIR [--tag after]]

--prompts defaults to benchmarks/rl_prompts_h200.jsonl: the prompt set of benchmarks/rl_h200_call.sh's runs
(`build_prompt_set(400, 32, 7001)`, the SFT corpora excluded, the novelty guard on), committed so that the
held-out split, the development set for choosing among SFT runs, cannot move. Its 32 held-out problems are
those of RL attempts 7 and 8. Rebuilt with:

    python -c "import json; from training.rl import build_prompt_set, sft_problems; from training.sft import CONFIGS; \
      rows = build_prompt_set(400, 32, 7001, None, sft_problems(sorted({p for c in CONFIGS.values() for p in c['data']})), \
      '../shared/kernelbench'); open('benchmarks/rl_prompts_h200.jsonl', 'w').write(''.join(json.dumps(r) + '\\n' for r in rows))"

`benchmarks/rl_prompts_h128.jsonl` is the same 432 problems in the same order with 128 held out
(`build_prompt_set(304, 128, 7001, ...)`, the same command otherwise): its first 32 held-out rows are the 32 above,
at the same indices, so they draw the same samples; 96 more problems give a held-out comparison four times the
problems. The 96 were training prompts of the runs on `rl_prompts_h200.jsonl`: compare on them only checkpoints
of runs on this file (which never train on them) and their start.

Same sampler (one seed per sample: `training.rl.evaluate_heldout`) and the same correctness-only verdicts as
the trainer's before/after evaluation with `eval_measure: false`, so a checkpoint saved by a run that was
stopped before its own "after" evaluation, and its init, can be compared with the same sample seeds.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SAMPLE_KEYS = ("pid", "stage", "rule", "why", "r_correct", "completion")  # one --samples row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prompts", default=str(Path(__file__).with_name("rl_prompts_h200.jsonl")),
                    help="a run's prompts.jsonl (its rows with split 'heldout'); default: the committed H200 prompt set")
    ap.add_argument("--model", required=True)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0, help="the run's eval_seed")
    ap.add_argument("--max-new-tokens", type=int, default=1024)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--chunk", type=int, default=64, help="rows per batched generate call")
    ap.add_argument("--split", default="heldout", choices=["heldout", "train"],
                    help="which rows of the prompt set: the held-out split (default), or the training prompts, whose "
                         "per-problem results (`by_problem`) `python -m training.prompt_filter` reads")
    ap.add_argument("--limit", type=int, help="only the first LIMIT rows of the split (the prompt set is shuffled): "
                    "a sample of the training prompts for `training.prompt_filter` when all 400 would take too long")
    ap.add_argument("--out")
    ap.add_argument("--samples", metavar="FILE.jsonl",
                    help="also write every sample (problem, stage, first failing rule and its text, completion)")
    ap.add_argument("--rows-per-pass", type=int, default=0, metavar="K",
                    help="sample and verify K problems at a time, rewriting --out after each pass (marked "
                         "\"partial\" until the last), so a run stopped by a time limit keeps the problems done; "
                         "the samples are the same as in one pass (one seed per problem index and sample)")
    ap.add_argument("--append-to", type=Path, metavar="RUN_DIR",
                    help="also append the result to RUN_DIR/heldout.jsonl as `training.rl` logs its own evaluations "
                         "(tag, step and reward; the last two from the checkpoint's tritonrl.json)")
    ap.add_argument("--tag", default="after", help="the tag of the --append-to row")
    a = ap.parse_args()
    if a.append_to and a.split != "heldout":
        ap.error("--append-to logs held-out evaluations only (a run's heldout.jsonl): not with --split train")

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from training.checkpoints import meta, prompt_form
    from training.rl import _heldout_samples, _verify_config, summarize_heldout

    rows = [json.loads(x) for x in Path(a.prompts).read_text().splitlines() if x.strip()]
    chosen = [r for r in rows if r["split"] == a.split][:a.limit]
    tok = AutoTokenizer.from_pretrained(a.model)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    dev = "cuda" if torch.cuda.is_available() and a.device != "cpu" else "cpu"
    model = AutoModelForCausalLM.from_pretrained(a.model, dtype=torch.float32).to(dev)
    cfg = dataclasses.replace(_verify_config(a.device, a.jobs), measure=False)
    t0 = time.time()
    form = prompt_form(a.model)  # the problem form the checkpoint was trained on
    items = list(enumerate(chosen))  # the index picks a problem's sample seeds, as in training.rl.evaluate_heldout
    step = a.rows_per_pass if a.rows_per_pass > 0 else max(1, len(items))
    samples: list[dict] = []
    about = dict(model=a.model, prompt=form, n=a.n, seed=a.seed, split=a.split)
    res: dict = {"problems": 0, "samples": 0, "correct_rate": None, **about, "seconds": 0.0}
    for lo in range(0, len(items), step):
        samples += _heldout_samples(model, tok, items[lo:lo + step], cfg, a.n, a.max_new_tokens, a.temperature,
                                    a.jobs, a.seed, a.chunk, form)
        done = min(lo + step, len(items))
        res = summarize_heldout(done, samples)
        res.update(**about, seconds=round(time.time() - t0, 1))
        if done < len(items):
            res["partial"] = f"{done} of {len(items)} problems"
            print(f"heldout_eval: {res['partial']} ({res['seconds']} s), correct rate {res['correct_rate']:.3f}",
                  file=sys.stderr, flush=True)
        if a.samples:  # rewritten each pass, like --out: a cut run keeps the samples it verified
            Path(a.samples).write_text("".join(json.dumps({k: x.get(k) for k in SAMPLE_KEYS}) + "\n"
                                               for x in samples))
        if a.out:
            tmp = Path(a.out).with_suffix(".tmp")
            tmp.write_text(json.dumps(res) + "\n")
            tmp.replace(a.out)  # a reader (or a kill) never sees half a file
    line = json.dumps(res)
    print(line, flush=True)
    if a.append_to:
        m = meta(a.model) or {}
        res.update(tag=a.tag, step=m.get("steps"), reward=m.get("reward"), time=time.time(),
                   measured_by="benchmarks/heldout_eval.py")
        with open(a.append_to / "heldout.jsonl", "a") as f:
            f.write(json.dumps(res) + "\n")
        print(f"held-out {a.tag} ({m.get('reward')}, {m.get('steps')} steps): {res['correct_rate']} over "
              f"{res['samples']} {res.get('stages')}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
