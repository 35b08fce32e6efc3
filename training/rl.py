"""RL with Hierarchical Reward Decomposition: `python -m training.rl`.

    python -m training.rl [--config tiny|small|FILE.json] --init CKPT [--out DIR]
                          [--reward hrd|uniform] [--alpha 0.1] [--beta 0.5] [--feedback DB]
                          [--max-steps N] [--device auto|cpu|cuda] [--vllm off|colocate|server]
                          [--publish gated|every] [--publish-tolerance RATE]

GRPO on TRL's `GRPOTrainer`, extended in one place: `HRDTrainer._generate_and_score_completions`
replaces TRL's per-sequence advantages with per-token ones (`training.hrd`). (`_generate` is wrapped
only to hold the verifier's sandbox refills back while the policy decodes, and to time it; `compute_loss` adds
the optional SFT anchor of `training.anchor`, config `anchor_coef` / `anchor_data`.) Rewards come from the
verifier (`verify_batch`, candidates of a prompt in parallel sandboxes). Prompts are generated
problems (`training.data`) plus every problem users asked about in the feedback store; a fixed
held-out split is evaluated before and after training. Each run directory holds:

    prompts.jsonl        the prompt set with its split (a resumed run reuses it)
    rollouts.jsonl       every completion: verdict, rewards, advantages, token counts (under
                         `accelerate launch`: rank 0's; rank N writes rollouts.rankN.jsonl)
    heldout.jsonl        held-out correct rate (and speedup on a GPU) before / after
    runs/                TensorBoard (rewards, correct rate, plan and code advantages, KL, lengths)
    checkpoint-N/, final/  Hugging Face checkpoints (resume points; `--publish every` publishes each to LATEST)
    final_adapter/       a LoRA run's adapter (checkpoint-N/ are adapters too; final/ is the merged model)
    published-step-N/    with `--publish gated` (the default): the copy of final/ published to LATEST (the LSP
                         reloads it) when its held-out correct rate did not fall below the start's
                         (`training.publish_gate`); a refused final is not served
    curves.png           the main curves at the end

A killed run resumes from its last checkpoint when started again with the same --out.

Data-parallel over several processes (GPUs, or CPU processes over gloo) with `accelerate launch
--config_file training/configs/accelerate_{multi_gpu,cpu_2proc}.yaml -m training.rl ...`: each rank
generates, verifies and logs its own rollouts; rewards are gathered, advantages normalised per
prompt group over all ranks and sliced back to each rank's completions; held-out evaluation is
split over the ranks; rank 0 writes the run's files and publishes checkpoints.
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import backends, checkpoints, hrd, prompts
from .sampling import sample_rows

CONFIGS = {
    # a few steps on CPU with the interpreter-backed verifier, well under 10 minutes (CI runs it)
    "tiny": dict(train_prompts=6, heldout=2, num_generations=4, batch=4, grad_accum=1, max_steps=3,
                 max_completion_length=160, lr=5e-5, kl=0.0, temperature=1.0, save_steps=2, eval_n=2,
                 prompt_seed=7001, jobs=2),
    # the embedded default's RL stage on one H200
    # (SFT responses reach ~850 tokens: 768 clipped whole groups on the H200, benchmarks/results/rl_small_h200.md)
    "small": dict(train_prompts=400, heldout=32, num_generations=8, batch=16, grad_accum=1, max_steps=60,
                  max_completion_length=1024, lr=5e-5, kl=0.01, temperature=1.0, save_steps=5, eval_n=2,
                  prompt_seed=7001, jobs=8, warmup=1),
}


def load_config(name: str) -> dict:
    if name in CONFIGS:
        return dict(CONFIGS[name])
    return {**CONFIGS["tiny"], **json.loads(Path(name).read_text())}


# ---------------------------------------------------------------- prompts

def _digest(problem: str) -> str:
    return hashlib.sha1(problem.encode()).hexdigest()


def build_prompt_set(n_train: int, n_heldout: int, seed: int, feedback_db: str | None = None,
                     exclude: set[str] = frozenset(), kernelbench: str | None = None,
                     log=print) -> list[dict]:
    """Generated problems plus the feedback store's, each labelled `train` or `heldout`.

    The split is by content hash (stable under reordering); problems in the SFT data (`exclude`) and
    near-copies of KernelBench never enter; a feedback problem can land on either side."""
    from .data.generate import generate
    from .data.novelty import NEAR_COPY, closest, find_kernelbench

    rows = [{"pid": s.id, "family": s.family, "problem": s.problem, "source": "generated"}
            for s in generate(2 * (n_train + n_heldout) + 8, seed) if s.problem not in exclude]
    if feedback_db and Path(feedback_db).exists():
        from .feedback import rl_prompts

        fb = rl_prompts(feedback_db)
        rows += [{"pid": f"feedback-{_digest(p)[:10]}", "family": "feedback", "problem": p, "source": "feedback"}
                 for p in fb]
        log(f"rl: {len(fb)} problems from the feedback store {feedback_db}")
    try:
        root = find_kernelbench(kernelbench)
    except ValueError as e:
        root = None
        log(f"rl: novelty guard skipped ({e})")
    if root is not None:
        kept = [r for r in rows if r["source"] == "feedback" or closest(r["problem"], root)[0] < NEAR_COPY]
        if len(kept) < len(rows):
            log(f"rl: dropped {len(rows) - len(kept)} generated problems too close to KernelBench")
        rows = kept
    feedback = [r for r in rows if r["source"] == "feedback"]
    generated = [r for r in rows if r["source"] == "generated"][:n_train + n_heldout]
    ordered = sorted(generated + feedback, key=lambda r: _digest(r["problem"]))
    for i, r in enumerate(ordered):
        r["split"] = "heldout" if i < n_heldout else "train"
    return ordered


def sft_problems(paths: list[str]) -> set[str]:
    out = set()
    for p in paths:
        if Path(p).exists():
            out |= {json.loads(line)["problem"] for line in Path(p).read_text().splitlines() if line.strip()}
    return out


# ---------------------------------------------------------------- rewards

def sandboxes_per_problem(jobs: int, problems: int) -> int:
    """Candidate sandboxes each problem gets when `problems` are verified side by side with `jobs` in all.

    Rounded up, so no job sits idle: 7 jobs over 4 problems are 2 each (floor division gave 1 each, and
    a step's ~30 distinct candidates then ran 4 at a time, half the jobs idle)."""
    return max(1, -(-jobs // max(1, problems)))


def problem_threads(jobs: int, problems: int, batch_timed: bool) -> int:
    """Threads verifying a step's problems side by side: `jobs` at most, a job being a busy sandbox. With batch
    timing on a GPU every problem gets one at once: its thread then waits for the problem's exclusive timing window
    (behind other jobs' correctness phases, up to `timing_patience_s`) holding no sandbox, and with 16 problems over
    14 jobs the last two would start only once a whole problem, timing included, was done. The sandboxes stay what
    `sandboxes_per_problem` gives each."""
    return max(1, problems if batch_timed else min(jobs, problems))


def grpo_sampling(cfg: dict) -> dict:
    """GRPOConfig's rollout sampling from a run config: temperature, and optional top_p / top_k / min_p (TRL's
    defaults when absent). Why the truncations: this SFT policy is near-deterministic at T 1.0 (5 of 8 completions of
    a group identical) and mostly unparseable at T 1.3 (72-75% of rollouts, the sampled tail of byte tokens and
    brackets: benchmarks/results/rl_medium2_h100_20261205); min_p cuts that tail while a higher T spreads the rest."""
    out = {"temperature": cfg["temperature"]}
    out.update({k: cfg[k] for k in ("top_p", "top_k", "min_p") if cfg.get(k) is not None})
    return out


def unscored_if_inconclusive(verdict: dict) -> dict:
    """A verdict dict, with `ok` None (unscored, like a verifier fault; verified again if the completion comes back)
    when it was rejected only for a reason that says nothing about the kernel: the shared GPU ran out of memory. A
    zero reward there would punish a correct kernel for what else ran on the GPU."""
    from verifier import Verdict

    # a verifier fault's dict (ok None) is not a Verdict's: only a rejection is read back as one
    if verdict.get("ok") is False and Verdict.from_dict(verdict).inconclusive:
        return dict(verdict, ok=None)
    return verdict


def clip(text: str, head: int = 300, tail: int = 1200) -> str:
    """A verifier message short enough for a rollout log, keeping both ends: a reference worker's failure is
    "the reference worker exited with 1: Traceback ..." whose cause is in the traceback's last lines (cutting at
    300 characters kept only its first frame)."""
    return text if len(text) <= head + tail + 5 else f"{text[:head]} ... {text[-tail:]}"


class VerifierReward:
    """TRL reward functions backed by the verifier: `correct` verifies the batch (grouped by problem,
    problems in parallel, candidates of a problem in parallel sandboxes); `speedup` reuses those
    verdicts. `last` keeps the batch's parse results and verdicts for logging.

    A low-entropy policy samples the same code many times: each distinct (problem, code) pair is
    verified once and its verdict reused, within a batch and across steps (`cache_size` most recent).
    Identical responses thereby also get identical speedups, so GPU timing noise between sandboxes
    running side by side cannot hand them different advantages."""

    def __init__(self, verify_cfg, speedup_cap: float = hrd.SPEEDUP_CAP, jobs: int = 2, max_len: int | None = None,
                 cache_size: int = 4096):
        self.cfg = verify_cfg
        self.cap = speedup_cap
        self.jobs = jobs
        self.max_len = max_len
        self.cache_size = cache_size
        self._cache: dict[str, dict] = {}
        self.last: dict | None = None
        self.stats: dict = {}

    def _verify(self, completions: list[str], completion_ids: list[list[int]], problem: list[str]) -> list[dict]:
        from verifier import verify_batch

        t0 = time.monotonic()
        parsed = []
        for text, ids in zip(completions, completion_ids):
            truncated = self.max_len is not None and len(ids) >= self.max_len
            parsed.append(prompts.parse_response(text, truncated=truncated))
        results: list[dict] = [{"parse": p.error, "verdict": None if p.ok else
                                prompts.parse_failure_verdict(p).to_dict()} for p in parsed]
        keys = [hashlib.sha1(f"{problem[i]}\0{p.code}".encode()).hexdigest() if p.ok else None
                for i, p in enumerate(parsed)]
        # distinct codes still to verify, grouped by problem (one reference run per problem)
        by_problem: dict[str, dict[str, str]] = {}
        for i, (p, k) in enumerate(zip(parsed, keys)):
            if k is not None and k not in self._cache:
                by_problem.setdefault(problem[i], {})[k] = p.code

        per_problem = sandboxes_per_problem(self.jobs, len(by_problem))

        def one(item):
            src, todo = item
            try:
                vs = [v.to_dict() for v in verify_batch(src, list(todo.values()), self.cfg, max_parallel=per_problem)]
            except Exception as e:  # a broken prompt or a verifier fault: unscorable, never fatal
                vs = [{"ok": None, "stage": "verifier-error", "reasons": [{"rule": type(e).__name__,
                                                                           "message": clip(str(e))}]}] * len(todo)
            return list(todo), [unscored_if_inconclusive(v) for v in vs]

        fresh: dict[str, dict] = {}
        batch_timed = self.cfg.times and self.cfg.batch_timing
        with ThreadPoolExecutor(max_workers=problem_threads(self.jobs, len(by_problem), batch_timed)) as ex:
            for ks, vs in ex.map(one, by_problem.items()):
                fresh.update(zip(ks, vs))
        for i, k in enumerate(keys):
            if k is not None:
                results[i]["verdict"] = fresh[k] if k in fresh else self._cache[k]
        for k, v in fresh.items():
            if v.get("ok") is not None:  # a verifier fault is retried next time, not remembered
                self._cache[k] = v
        while len(self._cache) > self.cache_size:
            self._cache.pop(next(iter(self._cache)))
        n_code = sum(k is not None for k in keys)
        self.stats = {"verify_s": time.monotonic() - t0, "verified": len(fresh), "reused": n_code - len(fresh)}
        return results

    def correct(self, prompts, completions, completion_ids, problem, **kw) -> list[float | None]:
        results = self._verify(list(completions), list(completion_ids), list(problem))
        self.last = {"completions": completions, "results": results, "pid": kw.get("pid")}
        out = []
        for r in results:
            v = r["verdict"]
            out.append(None if v is not None and v.get("ok") is None else hrd.rewards(v, self.cap)[0])
        self.last["r_correct"] = out
        return out

    def speedup(self, prompts, completions, **kw) -> list[float | None]:
        assert self.last is not None and self.last["completions"] is completions, "correct() runs first"
        out = []
        for r in self.last["results"]:
            v = r["verdict"]
            out.append(None if v is not None and v.get("ok") is None else hrd.rewards(v, self.cap)[1])
        self.last["r_speedup"] = out
        return out


def set_aside_discarded_rollouts(out: Path, step: int) -> int:
    """On resuming from checkpoint-`step`: move the rollouts logged for step `step` or later (by the killed run,
    whose updates from them were never saved) from each rank's rollouts log to rollouts.discarded.jsonl, so the
    run's log holds each step's rollouts once, those that trained the model. Returns how many were moved."""
    moved = 0
    for log in sorted(out.glob("rollouts*.jsonl")):
        if log.name == "rollouts.discarded.jsonl":
            continue
        keep, drop = [], []
        for line in log.read_text().splitlines(keepends=True):
            try:
                late = json.loads(line).get("step", -1) >= step
            except ValueError:  # a line cut by the kill
                late = True
            (drop if late else keep).append(line)
        if drop:
            with open(out / "rollouts.discarded.jsonl", "a") as f:
                f.writelines(x if x.endswith("\n") else x + "\n" for x in drop)
            tmp = log.with_suffix(".tmp")
            tmp.write_text("".join(keep))
            os.replace(tmp, log)
            moved += len(drop)
    return moved


# ---------------------------------------------------------------- trainer

def _make_trainer_class():
    import torch
    from trl import GRPOTrainer

    class HRDTrainer(GRPOTrainer):
        """GRPOTrainer with per-token advantages: HRD (plan ← speedup, code ← correctness) or uniform."""

        def __init__(self, *args, verifier_reward: VerifierReward, reward_mode: str = "hrd", alpha: float = 0.1,
                     beta_mix: float = 0.5, rollout_log: Path | None = None, negative_scale: float = 1.0,
                     sft_anchor=None, anchor_coef: float = 0.0, anchor_kind: str = "nll", **kw):
            self.verifier_reward = verifier_reward
            # training.anchor: the SFT samples' NLL ("nll") or the KL from the reference on them ("kl") in the loss
            self.sft_anchor, self.anchor_coef, self.anchor_kind = sft_anchor, anchor_coef, anchor_kind
            self.negative_scale = negative_scale  # hrd.scale_negative: < 1 weighs wrong samples' tokens less
            self.reward_mode, self.alpha, self.beta_mix = reward_mode, alpha, beta_mix
            self.rollout_log = rollout_log
            self._hrd_rewards = None
            super().__init__(*args, reward_funcs=[verifier_reward.correct, verifier_reward.speedup], **kw)

        def _generate(self, prompts_):
            # no verifier sandbox starts while the policy decodes (they slowed decoding ~5x on the H200)
            from verifier.pool import POOL

            t0 = time.monotonic()
            with POOL.paused():
                out = super()._generate(prompts_)
            self._metrics["train" if self.model.training else "eval"]["hrd/generate_s"].append(time.monotonic() - t0)
            return out

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            """GRPO's loss, plus `anchor_coef` x the anchor term on a batch of SFT samples when an anchor is set: the
            policy's NLL on them, or (anchor_kind "kl") its KL from the reference model there."""
            loss = super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
            if self.sft_anchor is None or not self.anchor_coef or not model.training:
                return loss
            from . import anchor

            # the unwrapped module: a second forward through DDP's wrapper before one backward is not supported;
            # the parameters are the same, so the backward's gradient (and DDP's all-reduce of it) holds both terms
            ids, mask, labels = (t.to(loss.device) for t in self.sft_anchor.next())
            policy = self.accelerator.unwrap_model(model)
            if self.anchor_kind == "kl":
                with torch.no_grad():
                    if self.ref_model is not None:
                        ref_logits = self.ref_model(input_ids=ids, attention_mask=mask).logits
                    else:  # a LoRA policy: the reference is the same module with its adapter off
                        with policy.disable_adapter():
                            ref_logits = policy(input_ids=ids, attention_mask=mask).logits
                    ref_logp = anchor.labelled_logp(ref_logits, labels)
                term = anchor.completion_kl(policy, ids, mask, labels, ref_logp)
            else:
                term = anchor.completion_nll(policy, ids, mask, labels)
            self._metrics["train"][f"hrd/anchor_{self.anchor_kind}"].append(term.item())
            # GRPO's loss comes scaled for gradient accumulation (TRL: loss_is_scaled_for_ga) and the micro-batches'
            # gradients add up: each one's anchor weighs 1/accum, so an optimizer step adds coef x the mean term
            # whatever the accumulation (unscaled, 4 micro-batches made it 4 x coef)
            return loss + self.anchor_coef * term / self.current_gradient_accumulation_steps

        def _calculate_rewards(self, inputs, prompts_, completions, completion_ids_list):
            self._release_gpu_memory()
            r = super()._calculate_rewards(inputs, prompts_, completions, completion_ids_list)
            self._hrd_rewards = r  # (N over all processes, 2): R_correct, R_speedup
            return r

        def _release_gpu_memory(self):
            """Hand the allocator's cached blocks back to the driver before the verifier's sandboxes and reference
            workers run on the same GPU. The last step's backward over a whole batch (32 x ~1.7k tokens) leaves
            gigabytes cached; with two trainers side by side the references then hit CUDA out-of-memory with 21 MiB
            of 79 GiB free (2026-12-06, benchmarks/results/rl_lr5e-5_h100_20261206). Logs this trainer's peak
            reserved memory over the step and the device's free memory after the release, so a run shows it."""
            if not torch.cuda.is_available() or self.accelerator.device.type != "cuda":
                return
            m = self._metrics["train" if self.model.training else "eval"]
            m["hrd/gpu_peak_reserved_gb"].append(torch.cuda.max_memory_reserved() / 2**30)
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
            m["hrd/gpu_free_gb"].append(torch.cuda.mem_get_info()[0] / 2**30)

        def _generate_and_score_completions(self, inputs):
            out = super()._generate_and_score_completions(inputs)
            mode = "train" if self.model.training else "eval"
            group = self.num_generations if mode == "train" else self.num_generations_eval
            r = self._hrd_rewards.float()
            n_local = out["completion_ids"].size(0)
            lo = self.accelerator.process_index * n_local  # this rank's rows of the gathered (N_all, 2)
            self._check_local_slice(r, lo, n_local)
            roles = hrd.roles_tensor(out["completion_ids"], out["completion_mask"], self.processing_class)
            roles = roles.to(out["completion_ids"].device)
            if self.reward_mode == "hrd":
                a_code = hrd.group_advantages(r[:, 0], group, self.scale_rewards)[lo:lo + n_local]
                a_plan = hrd.group_advantages(r[:, 1], group, self.scale_rewards)[lo:lo + n_local]
                adv = hrd.hrd_advantages(roles, a_plan, a_code, self.alpha)
            else:
                mix = self.beta_mix * r[:, 0] + (1 - self.beta_mix) * r[:, 1]
                a_code = a_plan = hrd.group_advantages(mix, group, self.scale_rewards)[lo:lo + n_local]
                adv = hrd.uniform_advantages(roles, a_code)
            adv = hrd.scale_negative(adv, self.negative_scale)
            out["advantages"] = adv.to(out["completion_mask"].device)
            self._log_hrd(mode, r, roles, adv, a_plan, a_code)
            return out

        def _check_local_slice(self, r, lo, n_local):
            """The rows [lo, lo + n_local) of the gathered rewards must be the ones this rank's reward
            functions returned for its own completions (else advantages would train on another rank's
            rollouts)."""
            last = self.verifier_reward.last
            if last is None or "r_speedup" not in last:
                return
            mine = torch.tensor([[float("nan") if x is None else float(x) for x in last[k]]
                                 for k in ("r_correct", "r_speedup")]).T
            got = r[lo:lo + n_local].cpu()
            if mine.shape != got.shape or not torch.allclose(mine, got, equal_nan=True):
                raise RuntimeError(f"rank {self.accelerator.process_index}: rewards [{lo}:{lo + n_local}] of the "
                                   f"gathered {tuple(r.shape)} are not this rank's ({tuple(mine.shape)})")

        def _log_hrd(self, mode, r, roles, adv, a_plan, a_code):
            plan, code = roles == hrd.PLAN, roles == hrd.CODE
            m = self._metrics[mode]
            valid = ~torch.isnan(r[:, 0])
            if valid.any():  # a step whose every rollout went unscored (verifier faults) has no rate, not 0
                m["hrd/correct_rate"].append(r[valid, 0].mean().item())
                m["hrd/speedup_reward"].append(r[valid, 1].mean().item())
            m["hrd/plan_advantage"].append(adv[plan].abs().mean().item() if plan.any() else 0.0)
            m["hrd/code_advantage"].append(adv[code].abs().mean().item() if code.any() else 0.0)
            m["hrd/plan_token_frac"].append(plan.sum().item() / max(1, (plan | code).sum().item()))
            for k, v in self.verifier_reward.stats.items():  # where a step's time goes
                m[f"hrd/{k}"].append(float(v))
            last = self.verifier_reward.last
            if self.rollout_log is None or last is None:
                return
            path = self.rollout_log if self.accelerator.process_index == 0 else \
                self.rollout_log.with_suffix(f".rank{self.accelerator.process_index}.jsonl")
            with open(path, "a") as f:
                for i, (text, res) in enumerate(zip(last["completions"], last["results"])):
                    v = res["verdict"] or {}
                    f.write(json.dumps({
                        "step": self.state.global_step, "mode": mode, "rank": self.accelerator.process_index,
                        "pid": (last.get("pid") or [None] * len(last["results"]))[i],
                        "ok": v.get("ok"), "stage": v.get("stage"), "parse": res["parse"],
                        "rules": [x.get("rule") for x in v.get("reasons", [])][:3],
                        # the first reason's text: a verifier fault (ok None) is otherwise unexplained in the log
                        "why": next((clip(str(x.get("message", ""))) for x in v.get("reasons", [])), None),
                        "speedup": v.get("speedup"),
                        "verify_s": v.get("elapsed_s"), "phases_s": v.get("phases_s"),
                        "r_correct": hrd.rewards(res["verdict"])[0], "r_speedup": hrd.rewards(res["verdict"])[1],
                        "a_plan": round(float(a_plan[i]), 4), "a_code": round(float(a_code[i]), 4),
                        "plan_tokens": int(plan[i].sum()), "code_tokens": int(code[i].sum()),
                        "completion": text}) + "\n")

    return HRDTrainer


# ---------------------------------------------------------------- held-out evaluation

def _heldout_samples(model, tokenizer, items: list[tuple[int, dict]], verify_cfg, n: int, max_new_tokens: int,
                     temperature: float, jobs: int, seed: int, chunk: int = 64,
                     form: str = prompts.PROMPT_FORM) -> list[dict]:
    """`n` sampled completions for each (index, row), verified: one record per sample. Sample `j` of
    row `i` comes from its own seed (derived from `seed`, `i`, `j`), so the samples do not depend on
    how the rows are split over ranks, and all rows are generated in batches."""
    if not items:
        return []
    was_training = model.training
    model.eval()
    texts, seeds, problems, pids = [], [], [], []
    for i, r in items:
        prompt = prompts.render(prompts.build_messages(r["problem"], form), tokenizer)
        for j in range(n):
            texts.append(prompt)
            seeds.append((seed * 1_000_003 + i) * 1024 + j)
            problems.append(r["problem"])
            pids.append(r.get("pid"))
    from verifier.pool import POOL

    try:
        with POOL.paused():  # no sandbox warms up while the policy decodes
            ids_list = sample_rows(model, tokenizer, texts, seeds, max_new_tokens, temperature, chunk=chunk,
                                   plan_budget=prompts.PLAN_TOKEN_BUDGET)
    finally:
        model.train(was_training)
    completions = [tokenizer.decode(row, skip_special_tokens=True) for row in ids_list]
    reward = VerifierReward(verify_cfg, jobs=jobs, max_len=max_new_tokens)
    rc = reward.correct(None, completions, ids_list, problems)
    out = []
    for pid, text, x, res in zip(pids, completions, rc, reward.last["results"]):
        v = res["verdict"] or {}
        reasons = v.get("reasons", [])
        out.append({"pid": pid, "r_correct": x, "stage": "parse" if res["parse"] else v.get("stage", "?"),
                    # the first failing rule and its text: which layer refused a sample, and why
                    "rule": reasons[0].get("rule") if reasons else None,
                    "why": clip(str(reasons[0].get("message", ""))) if reasons else None,
                    "speedup": v.get("speedup") if v.get("ok") else None, "completion": text})
    return out


def evaluate_heldout(model, tokenizer, rows: list[dict], verify_cfg, n: int, max_new_tokens: int,
                     temperature: float, jobs: int = 2, seed: int = 0, rank: int = 0, world: int = 1,
                     gather=None, chunk: int = 64, form: str = prompts.PROMPT_FORM) -> dict:
    """Sample `n` completions per held-out problem with the policy, verify them, and report the
    correct rate (the mean of R_correct) and the mean speedup of the correct ones.

    Distributed: every rank calls this with the same `rows`, takes rows rank, rank + world, ...,
    and `gather` (accelerate's `gather_object`) joins the samples, so every rank returns the same
    summary of all of them."""
    if not rows:
        return {"problems": 0, "samples": 0, "correct_rate": None}
    mine = [(i, r) for i, r in enumerate(rows) if i % world == rank]
    samples = _heldout_samples(model, tokenizer, mine, verify_cfg, n, max_new_tokens, temperature, jobs, seed, chunk,
                               form)
    if gather is not None and world > 1:
        samples = gather(samples)
    return summarize_heldout(len(rows), samples)


def summarize_heldout(problems: int, samples: list[dict]) -> dict:
    """The held-out summary of verified samples (`_heldout_samples` records): correct rate, mean speedup of the
    correct ones, failing stages, and per problem the verdict of each sample."""
    stages: dict[str, int] = {}
    for x in samples:
        stages[x["stage"]] = stages.get(x["stage"], 0) + 1
    scored = [x["r_correct"] for x in samples if x["r_correct"] is not None]
    timed = [x["speedup"] for x in samples if x["speedup"]]
    by_problem: dict[str, list] = {}  # which problems the policy solves, for before/after per problem
    reasons: dict[str, int] = {}      # the failing samples by stage and first rule ("sandbox/init-error")
    for x in samples:
        by_problem.setdefault(str(x["pid"]), []).append(x["stage"] if not x["r_correct"] else "ok")
        if not x["r_correct"]:
            key = f'{x["stage"]}/{x.get("rule") or "?"}'
            reasons[key] = reasons.get(key, 0) + 1
    return {"problems": problems, "samples": len(samples), "correct_rate": sum(scored) / max(1, len(scored)),
            "mean_speedup_correct": sum(timed) / len(timed) if timed else None, "stages": stages,
            "reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])), "by_problem": by_problem}


# ---------------------------------------------------------------- curves

CURVES = [("reward", "reward (weighted sum)"), ("hrd/correct_rate", "correct rate"),
          ("hrd/plan_advantage", "|advantage| plan tokens"), ("hrd/code_advantage", "|advantage| code tokens"),
          ("kl", "KL to reference"), ("completions/mean_length", "completion length (tokens)")]


def _publish_if_not_worse(out: Path, final: Path, init: Path, meta: dict, after: float | None, args) -> bool:
    """--publish gated: serve a copy of `final` if its held-out rate is not below the run's start; else leave the
    served checkpoint as it is (a run directory that served nothing yet serves the start). Says which, and records
    the decision in final/tritonrl.json."""
    from . import publish_gate

    before = publish_gate.start_rate(out / "heldout.jsonl")
    ok, why = publish_gate.decide(before, after, args.publish_tolerance)
    step = meta["steps"]
    (final / "tritonrl.json").write_text(json.dumps({**meta, "published": ok, "publish_gate": why}, indent=1))
    if ok:
        served = publish_gate.serve_copy(final, out, step)
        checkpoints.publish(out, served, stage="rl", step=step, reward=args.reward, gate=why)
        print(f"rl: published {served.name} ({why})", flush=True)
        return True
    current = checkpoints.latest(out)
    if current is None:
        checkpoints.publish(out, init, stage="init", step=0, gate=why)
    print(f"rl: not published: {why}; the served checkpoint stays {current['path'] if current else init} "
          f"(--publish every serves every checkpoint unevaluated)", flush=True)
    return False


def plot_curves(log_history: list[dict], path: Path, title: str) -> Path | None:
    """A PNG of the main training curves (matplotlib, headless)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(2, 3, figsize=(12, 6.5))
    for ax, (key, label) in zip(axes.flat, CURVES):
        pts = [(h["step"], h[key]) for h in log_history if key in h and "step" in h]
        if pts:
            ax.plot(*zip(*pts), marker="o", ms=3)
        ax.set_title(label, fontsize=10)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ---------------------------------------------------------------- main

def _verify_config(device: str, jobs: int, problems: int = 1, batch_timing: bool = False,
                   timing_patience_s: float = 30.0, pool_size: int | None = None):
    import torch
    from verifier import VerifyConfig

    from .data.build import CPU_SIZES

    dev = ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
    # pool_size: warm candidate sandboxes kept ahead (default jobs). A step's ~120 verifications each take a fresh
    # one; on an H100 they waited 450-1000 s a step (summed) for one to warm up (imports, CUDA context, a warm-up
    # kernel: ~4-5 s each), the most of any wait (benchmarks/results/timing_ab_h100_20261207)
    pool = dict(pool=True, pool_size=pool_size or jobs, max_parallel=jobs, reference_pool=min(problems, jobs))
    if dev == "cpu":  # the interpreter: one trial at small sizes plus the two perturbed ones, no timing
        return VerifyConfig(device="cpu", trials=1, measure=False, **pool, **CPU_SIZES)
    # GPU: speedup over eager is the plan reward; torch.compile's time is not needed for it. The timed loop is
    # capped at 4 passes over its input sets (same reported time, every call still checked): on an H100 each
    # correct candidate held the exclusive GPU window 0.6-0.9 s at the default 200 calls, and the other
    # candidates waited 5-7 s a step for it (benchmarks/results/rl_medium_h100_20261205)
    # batch_timing (config key; with timing_patience_s) times a step's kernels after its correctness phases: each
    # timing one by one drains the GPU of correctness phases, and a step waited 462 s (summed over 14 jobs) for the
    # lock against ~16 s of timed work (benchmarks/results/rl_lora_sft519_h100_20261207/phases.txt). Off by
    # default: replayed on an H100 it was faster on one logged step (81.6 s against 97.2 s) and slower on another
    # (106.9 s and over ~100 s against 68.2 s), lock waits being small beside the warm-up waits
    # (benchmarks/results/timing_ab_h100_20261207, benchmarks/rl_verify_replay.py)
    return VerifyConfig(device="cuda", compile_baseline=False, timing_reps=32, batch_timing=batch_timing,
                        timing_patience_s=timing_patience_s if batch_timing else 0.0, **pool)


def _start_sandboxes(verify_cfg) -> None:
    """Start the verifier's sandboxes now, so they warm up beside the trainer's setup: a process's first step
    otherwise waited ~42 s (median over its 16 problems) for cold reference workers, against 0.7 s on later steps
    (H100, 2026-12-07, benchmarks/results/rl_lora_lr1e-3_h100_20261207/reference_wait.txt). The first
    generation's POOL.paused() lets the ones still starting finish before the policy decodes."""
    from verifier.runner import prewarm

    prewarm(verify_cfg, wait=False)


def _pin_verifier_gpu(local_rank: int) -> None:
    """Under `accelerate launch`, verify each rank's rollouts on that rank's GPU: the sandboxed
    workers inherit CUDA_VISIBLE_DEVICES (set after this process has its own CUDA context)."""
    visible = [d for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    os.environ["CUDA_VISIBLE_DEVICES"] = visible[local_rank] if local_rank < len(visible) else str(local_rank)


def anchor_error(cfg: dict, lora: bool) -> str | None:
    """Why `cfg`'s SFT anchor cannot run (None when it can, or when there is none)."""
    if not cfg.get("anchor_coef"):
        return None
    if not cfg.get("anchor_data"):
        return "anchor_coef needs anchor_data, a list of SFT JSONL files ({problem, response} rows)"
    kind = cfg.get("anchor_kind", "nll")
    if kind not in ("nll", "kl"):
        return f'anchor_kind must be "nll" or "kl", got {kind!r}'
    if kind == "kl" and not cfg.get("kl") and not lora:
        # TRL keeps a reference model only when its KL coefficient (beta) is not 0; a LoRA policy is its own
        # reference with the adapter off
        return 'anchor_kind "kl" needs a reference model: a "kl" above 0, or --lora'
    return None


def batch_error(cfg: dict, world: int) -> str | None:
    """Why `cfg`'s batch cannot run on `world` processes, in the config's own terms (None when it can).

    GRPO generates `batch × world × grad_accum` completions per generation step and normalises
    advantages within prompt groups of `num_generations`, so that product must be a whole number of
    groups (TRL checks it too, deep in `GRPOConfig`, with a traceback in its own terms)."""
    n, b, ga = cfg["num_generations"], cfg["batch"], cfg["grad_accum"]
    if n < 2:
        return f"num_generations is {n}: GRPO needs at least 2 completions per prompt to compare them"
    total = b * world * ga
    if total % n:
        fits = [x for x in range(1, 4 * n + 1) if (x * world * ga) % n == 0][:3]
        divs = [d for d in range(2, total + 1) if total % d == 0][:3]
        procs = f" × {world} processes" if world > 1 else ""
        alt = f" (or num_generations {' or '.join(map(str, divs))})" if divs else ""
        return (f"batch {b}{procs} × grad_accum {ga} = {total} completions per generation step, which is not a "
                f"whole number of prompt groups of num_generations {n}; use a per-process batch of "
                f"{' or '.join(map(str, fits))}{alt}")
    return None


def _vllm_mode(choice: str) -> str | None:
    if choice == "off":
        return None
    try:
        import vllm  # noqa: F401
    except ImportError:
        if choice != "auto":
            raise SystemExit(f"--vllm {choice}: vLLM is not installed (pip install 'tritonrl[vllm]' on a CUDA machine)")
        return None
    import torch

    if not torch.cuda.is_available():
        return None
    return "colocate" if choice == "auto" else choice


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.rl", description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="tiny")
    ap.add_argument("--init", required=True, help="the SFT checkpoint (or run directory) to start from")
    ap.add_argument("--out", default="runs/rl")
    ap.add_argument("--reward", choices=["hrd", "uniform"], default="hrd")
    ap.add_argument("--alpha", type=float, default=0.1, help="HRD: weight of the plan tokens' speedup advantage")
    ap.add_argument("--beta", type=float, default=0.5, help="uniform: β·R_correct + (1-β)·R_speedup on every token")
    ap.add_argument("--feedback", help="also take prompts from this feedback store (default: the per-user store, "
                                       "when it exists)")
    ap.add_argument("--no-feedback", action="store_true", help="do not read any feedback store")
    ap.add_argument("--lora", action="store_true",
                    help="train a LoRA adapter on --init (rank: the config's lora_r, default 16; also the config's "
                         '"lora": true); final/ is the merged model, final_adapter/ the adapter')
    ap.add_argument("--max-steps", type=int)
    ap.add_argument("--time-limit", type=float, help="stop training after this many minutes (then the final save "
                                                     "and the held-out evaluation)")
    ap.add_argument("--train-until", type=float, metavar="UNIX_TIME",
                    help="also stop training at this wall-clock time (seconds since the epoch), so that a call with "
                         "a hard end keeps time for the final save and the held-out evaluation")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"], help="where rollouts are verified")
    ap.add_argument("--vllm", default="auto", choices=["auto", "off", "colocate", "server"],
                    help="rollouts through vLLM (TRL's colocate or server mode) when installed; else transformers")
    ap.add_argument("--kernelbench", help="KernelBench root for the novelty guard on generated prompts")
    ap.add_argument("--seed", type=int, default=0, help="training seed (data order, sampling); the held-out "
                                                        "samples use the config's eval_seed when it has one")
    ap.add_argument("--no-eval-before", action="store_true",
                    help="skip the held-out evaluation before training (another run from the same --init, "
                         "held-out set and eval seed already measured it)")
    ap.add_argument("--publish", choices=["gated", "every"], default="gated",
                    help="gated (default): publish nothing while training, and at the end serve the final "
                         "checkpoint only if its held-out correct rate is not below the start's "
                         "(training/publish_gate.py); every: publish each saved checkpoint as it is written")
    ap.add_argument("--publish-tolerance", type=float, default=0.0, metavar="RATE",
                    help="gated: how far the held-out correct rate may fall and the final still be served "
                         "(negative: the gain it must show)")
    ap.add_argument("--no-eval-after", action="store_true",
                    help="skip the held-out evaluation after training (measure the final checkpoint separately, "
                         "e.g. with benchmarks/heldout_eval.py)")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    if args.max_steps:
        cfg["max_steps"] = args.max_steps

    # the batch must hold whole prompt groups on this many processes: say so before TRL does
    world = int(os.environ.get("WORLD_SIZE", "1"))
    lora = args.lora or bool(cfg.get("lora"))
    err = batch_error(cfg, world) or anchor_error(cfg, lora)
    if err:
        # every rank says it (the launcher may kill the others as soon as the first one exits)
        print(f"rl: --config {args.config}: {err}", file=sys.stderr, flush=True)
        return 2

    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from transformers.trainer_utils import get_last_checkpoint
    from trl import GRPOConfig

    from .callbacks import TimeLimit

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    init = checkpoints.resolve(args.init)
    if not checkpoints.is_checkpoint(init):
        raise SystemExit(f"--init {args.init}: not a checkpoint (no config.json or adapter_config.json)")
    t_start = time.time()

    # the config first: under `accelerate launch` it sets up the process group (one rank per process)
    vllm_mode = _vllm_mode(args.vllm)
    gpu = torch.cuda.is_available()
    cache = cfg.get("cache_implementation", "static")
    # bf16 autocast and a static cache do not mix: Llama's rotary embedding promotes the keys to fp32 while the
    # values stay bf16, and the static cache holds one dtype (index_copy_ fails at the first rollout). With the
    # static cache a GPU trains in fp32 with TF32 matmuls: the small model's cost is the decode loop, not FLOPs.
    bf16 = gpu and cfg.get("bf16", not (cache == "static" and vllm_mode is None))
    gcfg = GRPOConfig(
        output_dir=str(out), max_steps=cfg["max_steps"], per_device_train_batch_size=cfg["batch"],
        gradient_accumulation_steps=cfg["grad_accum"], num_generations=cfg["num_generations"],
        max_completion_length=cfg["max_completion_length"], learning_rate=cfg["lr"], beta=cfg["kl"],
        **grpo_sampling(cfg), logging_steps=1, save_steps=cfg["save_steps"], save_total_limit=2,
        report_to=["tensorboard"], seed=args.seed, use_cpu=not gpu, bf16=bf16, tf32=True if gpu and not bf16 else None,
        scale_rewards="group",
        # < 1: the loss only on the completion tokens of the highest entropy (TRL's "80/20" token selection); the
        # rest, near-certain tokens of code syntax, get no policy gradient (default 1.0: every token)
        top_entropy_quantile=cfg.get("top_entropy_quantile", 1.0),
        reward_weights=[1.0, args.alpha] if args.reward == "hrd" else [args.beta, 1 - args.beta],
        use_vllm=vllm_mode is not None, vllm_mode=vllm_mode or "colocate", log_completions=False,
        remove_unused_columns=False, dataloader_num_workers=0, lr_scheduler_type="constant_with_warmup",
        # rollouts decode into a preallocated cache (the dynamic one re-concatenates every layer each step)
        cache_implementation=cache,
        warmup_steps=cfg.get("warmup", min(5, cfg["max_steps"] // 10)),
        # TRL turns it on by default; a small model has no activation memory to save and pays the recompute
        gradient_checkpointing=cfg.get("gradient_checkpointing", True))
    main_proc = gcfg.process_index == 0

    # prompts: written once per run, reused on resume (the held-out split must not move); under
    # `accelerate launch` rank 0 builds and writes the set while the others wait, then they read it
    prompt_file = out / "prompts.jsonl"
    with gcfg.main_process_first(local=False, desc="prompt set"):
        if prompt_file.exists():
            rows = [json.loads(x) for x in prompt_file.read_text().splitlines() if x.strip()]
        else:
            from .feedback import default_path

            fb = None if args.no_feedback else (args.feedback or str(default_path()))
            from .sft import CONFIGS as SFT_CONFIGS

            exclude = sft_problems(sorted({p for c in SFT_CONFIGS.values() for p in c["data"]}))
            rows = build_prompt_set(cfg["train_prompts"], cfg["heldout"], cfg["prompt_seed"], fb, exclude,
                                    args.kernelbench)
            tmp = prompt_file.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
            os.replace(tmp, prompt_file)  # a reader never sees half a prompt set
    train_rows = [r for r in rows if r["split"] == "train"]
    held = [r for r in rows if r["split"] == "heldout"]
    if main_proc:
        print(f"rl: {len(train_rows)} training prompts, {len(held)} held out"
              + (f"; {gcfg.world_size} processes" if gcfg.world_size > 1 else ""), flush=True)

    tokenizer = AutoTokenizer.from_pretrained(str(init))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    peft_config = None
    if (init / "adapter_config.json").exists():
        from peft import AutoPeftModelForCausalLM

        model = AutoPeftModelForCausalLM.from_pretrained(str(init), is_trainable=True)
    else:
        model = AutoModelForCausalLM.from_pretrained(str(init), dtype=torch.float32)
        if lora:
            from .lora import lora_config

            # a low-rank update: RL's few bits an episode do not need (and a noisy step cannot move) every weight
            peft_config = lora_config(cfg)

    # one warm reference worker per prompt of a step: a step verifies its prompts' problems side by side
    # (TRL generates grad_accum micro-batches at once: that many prompts are verified side by side)
    verify_cfg = _verify_config(args.device, cfg["jobs"],
                                max(1, cfg["batch"] * cfg["grad_accum"] // cfg["num_generations"]),
                                **{k: cfg[k] for k in ("batch_timing", "timing_patience_s", "pool_size") if k in cfg})
    if gcfg.world_size == 1:  # several processes start theirs once each is pinned to its GPU (below)
        _start_sandboxes(verify_cfg)
    form = checkpoints.prompt_form(init)  # the problem form the initial policy was trained on; RL keeps it
    # what every checkpoint of the run says about itself: how the server must prompt it, whether it refines
    run_meta = {"stage": "rl", "config": args.config, "init": str(init), "prompt": form,
                "multi_turn": backends.refines(init), "reward": args.reward}
    data = Dataset.from_list([{"prompt": prompts.render(prompts.build_messages(r["problem"], form), tokenizer),
                               "problem": r["problem"], "pid": r["pid"]} for r in train_rows])
    os.environ.setdefault("TENSORBOARD_LOGGING_DIR", str(out / "runs"))
    sft_anchor = None
    if cfg.get("anchor_coef"):  # an SFT term in the loss (training.anchor), on the corpora named in the config
        from .anchor import AnchorBatches

        sft_anchor = AnchorBatches.from_files(cfg["anchor_data"], tokenizer, form=form,
                                              batch=cfg.get("anchor_batch", 4),
                                              max_len=cfg.get("anchor_max_len", 2048), seed=args.seed)
        if main_proc:
            print(f"rl: SFT anchor ({cfg.get('anchor_kind', 'nll')}), coef {cfg['anchor_coef']}, "
                  f"{len(sft_anchor.rows)} samples, "
                  f"{sft_anchor.batch} a step", flush=True)

    class Publish(TrainerCallback):  # --publish every: each saved checkpoint becomes the served one
        def on_save(self, a, state, control, **kw):
            if state.is_world_process_zero and args.publish == "every":
                ck = out / f"checkpoint-{state.global_step}"
                if checkpoints.is_checkpoint(ck):
                    (ck / "tritonrl.json").write_text(json.dumps({**run_meta, "steps": state.global_step}, indent=1))
                    checkpoints.publish(out, ck, stage="rl", step=state.global_step, reward=args.reward)
                    print(f"rl: published {ck.name}", flush=True)

    trainer = _make_trainer_class()(
        model=model, args=gcfg, train_dataset=data, processing_class=tokenizer, peft_config=peft_config,
        callbacks=[Publish()] + ([TimeLimit(args.time_limit, args.train_until)]
                                 if args.time_limit or args.train_until else []),
        verifier_reward=VerifierReward(verify_cfg, jobs=cfg["jobs"], max_len=cfg["max_completion_length"]),
        reward_mode=args.reward, alpha=args.alpha, beta_mix=args.beta, rollout_log=out / "rollouts.jsonl",
        negative_scale=cfg.get("negative_advantage_scale", 1.0), sft_anchor=sft_anchor,
        anchor_coef=cfg.get("anchor_coef", 0.0), anchor_kind=cfg.get("anchor_kind", "nll"))
    if trainer.accelerator.num_processes > 1 and verify_cfg.device == "cuda":
        _pin_verifier_gpu(trainer.accelerator.local_process_index)
    if gcfg.world_size > 1:
        _start_sandboxes(verify_cfg)
    acc = trainer.accelerator
    assert acc.is_main_process == main_proc and acc.num_processes == gcfg.world_size

    def heldout(tag: str) -> dict:
        """Every rank samples and verifies its share of the held-out problems; rank 0 writes the result."""
        from accelerate.utils import gather_object

        acc.wait_for_everyone()
        # eval_measure false: correctness only (no GPU timing lock, so the held-out verdicts run fully in parallel)
        eval_cfg = dataclasses.replace(verify_cfg, measure=verify_cfg.measure and cfg.get("eval_measure", True))
        res = evaluate_heldout(acc.unwrap_model(trainer.model), tokenizer, held, eval_cfg,
                               # eval_temperature: rollouts may sample hotter (a near-deterministic SFT policy
                               # gives groups of identical completions) while the held-out rate stays comparable
                               cfg["eval_n"], cfg["max_completion_length"], cfg.get("eval_temperature",
                                                                                    cfg["temperature"]), cfg["jobs"],
                               seed=cfg.get("eval_seed", args.seed), rank=acc.process_index, world=acc.num_processes,
                               gather=gather_object, chunk=cfg.get("eval_chunk", 64), form=form)
        res.update(tag=tag, step=trainer.state.global_step, reward=args.reward, time=time.time())
        if main_proc:
            with open(out / "heldout.jsonl", "a") as f:
                f.write(json.dumps(res) + "\n")
            print(f"rl: held-out {tag}: correct rate {res['correct_rate']} over {res['samples']} samples "
                  f"({res.get('stages')})", flush=True)
        acc.wait_for_everyone()
        return res

    last = get_last_checkpoint(str(out)) if any(out.glob("checkpoint-*")) else None
    if last is None and held and not args.no_eval_before:
        heldout("before")
    if last is not None and main_proc:
        moved = set_aside_discarded_rollouts(out, int(Path(last).name.split("-")[-1]))
        if moved:
            print(f"rl: resuming from {Path(last).name}: {moved} rollouts of unsaved steps moved to "
                  f"rollouts.discarded.jsonl", flush=True)
    acc.wait_for_everyone()
    trainer.train(resume_from_checkpoint=last)
    final = out / "final"
    policy = acc.unwrap_model(trainer.model)
    adapter = hasattr(policy, "merge_and_unload")  # a peft model: a LoRA run
    # a LoRA run saves its adapter beside final/, and final/ is the merged model, so that whatever serves or
    # evaluates a final checkpoint (the language server, heldout_eval, the publish gate) loads plain weights
    trainer.save_model(str(out / "final_adapter" if adapter else final))  # collective: every rank calls it
    if adapter and main_proc:
        import copy

        copy.deepcopy(policy).merge_and_unload().save_pretrained(str(final))
    meta = {**run_meta, "alpha": args.alpha, "beta": args.beta, "steps": trainer.state.global_step}
    if main_proc:
        # the run's files first: a run stopped during the held-out evaluation below still leaves a whole final
        # checkpoint, its curves and its history
        tokenizer.save_pretrained(str(final))
        (final / "tritonrl.json").write_text(json.dumps(meta, indent=1))
        if args.publish == "every":
            checkpoints.publish(out, final, stage="rl", step=trainer.state.global_step, reward=args.reward)
            print(f"rl: published {final.name}", flush=True)
        (out / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=1))
        png = plot_curves(trainer.state.log_history, out / "curves.png",
                          f"GRPO ({args.reward}{', α=%g' % args.alpha if args.reward == 'hrd' else ', β=%g' % args.beta})"
                          f" from {init.name}")
        print(f"rl: saved {final} after {trainer.state.global_step} steps in {time.time() - t_start:.0f} s"
              + (f"; curves {png}" if png else ""), flush=True)
    after = heldout("after") if held and not args.no_eval_after else {}
    if main_proc and after:
        meta["heldout_after"] = after.get("correct_rate")
        (final / "tritonrl.json").write_text(json.dumps(meta, indent=1))
    if main_proc and args.publish == "gated":
        _publish_if_not_worse(out, final, init, meta, after.get("correct_rate"), args)
    acc.wait_for_everyone()  # no rank exits while rank 0 still writes the run's files
    # destroy the process group before exiting: a gloo group torn down at interpreter exit instead can abort a rank
    # (one SIGABRT of the 2-process CPU resume test, 2026-12-07, cause not pinned down)
    acc.end_training()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
