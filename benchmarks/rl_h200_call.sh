#!/bin/bash
# One device call: GRPO on one H200, HRD and uniform side by side from the same checkpoint with the
# same seed and an equal wall-clock training budget (--time-limit), held-out correct rate before and
# after; returns the logs and both finals (bf16, for a continuation call).
#   INIT   checkpoint to start from (default: the SFT small checkpoint; a continuation passes call 1's finals
#          as INIT_HRD / INIT_UNIFORM)
#   SEED   training seed (data order); the held-out samples use eval_seed from the config, so every call
#          samples the held-out problems the same way
#   RL_MIN --time-limit of each run, minutes;  HARD  seconds after which both runs are stopped; training
#          also stops AFTER_S seconds before HARD (--train-until), so the final save and the held-out "after"
#          evaluation fit in the call (give it 180 s a run: 110 s and 125 s were not enough for a 15-step final,
#          2026-12-06, rl_entq0.2_h100_20261206b; it samples 16 problems a pass, so a cut one keeps the problems
#          done, marked "partial"). The "after" evaluation runs once every run has stopped, one run at a time
#          with all verifier jobs (benchmarks/heldout_eval.py, same samples as the run's own evaluation: eval
#          seed 0), and is appended to the run's heldout.jsonl; AFTER_S defaults to 40 s plus 120 s per run
#          (32 held-out problems x 4 took 104 s alone on an H100; two runs' in-run evaluations side by side at 7
#          jobs each did not finish in 150 s, 2026-12-05)
#   SHARED_BEFORE=1  only the HRD run measures "before" (same init, held-out set and eval seed: identical)
#   RUNS   which rewards to run (default "hrd uniform", side by side); JOBS verifier jobs per run (default 7)
#   NO_BEFORE=1  no run measures "before" (an earlier call measured it for this init and eval seed)
#   BATCH  completions per micro-batch (default 64: 8 prompts x 8 generations; GRAD_ACCUM micro-batches a step,
#          default 1, all generated at once); SAVE_STEPS checkpoint every this many steps (default 2); STEPS --max-steps (default:
#          none, the time limit decides), so separate calls per reward can train the same number of steps
#   HELDOUT held-out problems (default 16), EVAL_N samples each (default 4), EVAL_CHUNK rows per generate call
#          (default 64), LR learning rate (default 3e-5: 1e-4 broke the shipped model's held-out rate in 10 steps,
#          benchmarks/results/rl_lr1e-4_h100_20261206; 5e-5 lowered it in 16, rl_lr5e-5_h100_20261206), TEMP rollout temperature (default 1.0; the held-out
#          evaluations sample at 1.0 whatever it is; 0.7 with lr 5e-5 lowered the held-out rate at T 1.0 in 11 steps,
#          rl_temp0.7_h200_20261206c), MIN_P rollout min_p (default none: e.g. 0.05 with TEMP 1.2 cuts the
#          unparseable tail T 1.3 sampled, benchmarks/results/rl_medium2_h100_20261205)
#   ENTROPY_Q top_entropy_quantile (default 1.0: the loss on every completion token; e.g. 0.2: only on the fifth of
#          the tokens with the highest entropy, TRL's token selection; not yet tried on a GPU)
#   NEG_SCALE negative_advantage_scale (default 1.0: plain GRPO; e.g. 0.25: a wrong sample's tokens weigh a quarter,
#          hrd.scale_negative, against the sampled tail that lr >= 5e-5 grew, rl_lr5e-5_h100_20261206)
#   KL     the KL coefficient (GRPOConfig beta, default 0.01)
#   ANCHOR the SFT anchor's coefficient (training.anchor: + ANCHOR x the policy's NLL on SFT samples; default 0: off)
#          with ANCHOR_DATA, a JSON list of SFT JSONL files present on the device (data/ is hidden there for the
#          tree's size: carry a subset, e.g. `head -n 1500 data/corpus.jsonl > .scratch/anchor.jsonl`, carried as
#          ".scratch/anchor.jsonl", ANCHOR_DATA='[".scratch/anchor.jsonl"]'); ANCHOR_BATCH samples a step (default 4)
#   PACK   whose finals come back (default: every run's; at most one fits: the device tool returns 8 files, 64 MiB
#          together, and a final's update, final - init in bf16 (benchmarks/rl_delta.py), is 52 MB in four 15 MB
#          parts; here: `cat rl_R.tar.part-* | tar xf -`, then `python benchmarks/rl_delta.py unpack --delta rl_R
#          --init INIT --out DIR` gives the float32 final)
#   LORA=1 train a LoRA adapter (rank LORA_R, default 16; alpha 2 x rank) instead of every weight; its adapter comes
#          back instead of the packed update (merge it here: `python benchmarks/rl_delta.py merge`)
#   POOL   warm candidate sandboxes kept ahead of the verifier (RL config pool_size; default: JOBS). A step waited
#          453-1006 s (summed) for sandboxes to warm up at 14 (benchmarks/results/timing_ab_h100_20261207)
#   RESUME=1 continue the runs a warm machine's /dev/shm still holds (default: start afresh)
#   FILTER=1 first samples INIT on the training prompts (FILTER_N each, FILTER_S seconds at most, 16 prompts a pass:
#          what is done when the time is up counts; only the first FILTER_LIMIT prompts if set: 32 x 4 samples take
#          100-118 s on a free H100, and 64 x 4 did not finish in 230 s, 2026-12-06) and keeps those it solves
#          sometimes but not always (`training.prompt_filter`; held-out rows unchanged, unmeasured ones dropped)
#   PROMPTS a prompts.jsonl built beforehand (by build_prompt_set with the same config, e.g. on a CPU machine):
#          copied into each run directory, so the run skips building it (about a minute of the call);
#          benchmarks/rl_prompts_h200.jsonl is the committed one for HELDOUT=32 (see benchmarks/heldout_eval.py)
# The working tree with the shipped default model is over the device tool's 64 MiB: first
#   bash scripts/device_slim.sh hide training/default_model/model.safetensors   (restore after the call)
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }; log() { echo "[$(el)s] $*"; }
L=/dev/shm/logs; mkdir -p $L
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD TRITONRL_TMPDIR=/dev/shm PYTHONUNBUFFERED=1 TRL_EXPERIMENTAL_SILENCE=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $L/env.txt; nproc >> $L/env.txt
python3 -c "from verifier.sandbox import isolation_mechanism as m; print('sandbox', *m())" >> $L/env.txt 2>&1
python3 -c "import trl, datasets, torch, triton, transformers; print('trl', trl.__version__, 'datasets', datasets.__version__, 'torch', torch.__version__, 'triton', triton.__version__, 'transformers', transformers.__version__)" >> $L/env.txt 2>&1
cat > /dev/shm/h200.json <<'J'
{"train_prompts": 400, "heldout": HELDOUT, "eval_n": EVAL_N, "eval_seed": 0, "eval_measure": false,
 "eval_chunk": EVAL_CHUNK, "num_generations": 8, "batch": BATCH, "grad_accum": GRAD_ACCUM, "max_steps": 60,
 "max_completion_length": 1024, "lr": LR, "kl": KLCOEF, "temperature": TEMP, "eval_temperature": 1.0, "min_p": MINP,
 "save_steps": SAVE_STEPS, "prompt_seed": 7001, "top_entropy_quantile": ENTROPY_Q, "negative_advantage_scale": NEG_SCALE,
 "jobs": JOBS, "warmup": 0, "gradient_checkpointing": false,
 "anchor_coef": ANCHORC, "anchor_data": ANCHORD, "anchor_batch": ANCHORB, "lora": LORA, "lora_r": LORA_R,
 "pool_size": POOLSIZE}
J
LORA_JSON=false; [ "${LORA:-0}" = 1 ] && LORA_JSON=true
sed -i "s/JOBS/${JOBS:-7}/; s/GRAD_ACCUM/${GRAD_ACCUM:-1}/; s/SAVE_STEPS/${SAVE_STEPS:-2}/; s/BATCH/${BATCH:-64}/; s/HELDOUT/${HELDOUT:-16}/; s/EVAL_N/${EVAL_N:-4}/;
        s/EVAL_CHUNK/${EVAL_CHUNK:-64}/; s/LR/${LR:-3e-5}/; s/TEMP/${TEMP:-1.0}/; s/MINP/${MIN_P:-null}/; s/ENTROPY_Q/${ENTROPY_Q:-1.0}/; s/NEG_SCALE/${NEG_SCALE:-1.0}/; s/KLCOEF/${KL:-0.01}/;
        s|ANCHORC|${ANCHOR:-0}|; s|ANCHORD|${ANCHOR_DATA:-[]}|; s|ANCHORB|${ANCHOR_BATCH:-4}|;
        s|LORA_R|${LORA_R:-16}|; s|LORA|$LORA_JSON|; s|POOLSIZE|${POOL:-null}|" /dev/shm/h200.json; cp /dev/shm/h200.json $L/
INIT=${INIT:-training/default_model}
TL=${RL_MIN:-4}
RUNS=${RUNS:-hrd uniform}
set -- $RUNS; AFTER_S=${AFTER_S:-$(( 40 + 120 * $# ))}
# a warm machine keeps /dev/shm: without RESUME=1 each run starts afresh (a stale run directory made a
# "new" run resume the previous call's checkpoint, optimizer and learning rate included)
[ "${RESUME:-0}" = 1 ] || for R in $RUNS; do rm -rf /dev/shm/rl_$R /dev/shm/pack/rl_$R; done
# a resumed run's previous final is stale: without this, a continuation stopped before its own final save
# packed the previous call's final as if it were the new one (2026-12-07)
for R in $RUNS; do rm -rf /dev/shm/rl_$R/final /dev/shm/rl_$R/final_adapter /dev/shm/pack/rl_$R; done
if [ "${FILTER:-0}" = 1 ]; then  # keep the training prompts INIT solves sometimes (groups with a signal)
  log "prompt filter: sampling the training prompts with $INIT"
  # 16 problems a pass, the rates rewritten after each: a filter cut by FILTER_S keeps the problems it finished
  timeout -k 5 ${FILTER_S:-240} python3 benchmarks/heldout_eval.py --model $INIT \
    --prompts ${PROMPTS:-benchmarks/rl_prompts_h200.jsonl} --split train --n ${FILTER_N:-4} ${FILTER_LIMIT:+--limit $FILTER_LIMIT} --seed 0 --jobs 14 \
    --device cuda --rows-per-pass 16 --out $L/train_rates.json > $L/train_rates.log 2>&1
  [ -s $L/train_rates.json ] && python3 -m training.prompt_filter --prompts ${PROMPTS:-benchmarks/rl_prompts_h200.jsonl} \
       --rates $L/train_rates.json --out /dev/shm/prompts_filtered.jsonl | tee -a $L/env.txt \
  && PROMPTS=/dev/shm/prompts_filtered.jsonl || log "prompt filter failed: the unfiltered prompts"
fi
for R in $RUNS; do
  V=INIT_${R^^}; I=${!V:-$INIT}
  [ -n "${PROMPTS:-}" ] && mkdir -p /dev/shm/rl_$R && [ ! -f /dev/shm/rl_$R/prompts.jsonl ] && cp $PROMPTS /dev/shm/rl_$R/prompts.jsonl
  EXTRA=""; { [ "${SHARED_BEFORE:-0}" = 1 ] && [ $R = uniform ]; } || [ "${NO_BEFORE:-0}" = 1 ] && EXTRA=--no-eval-before
  ( python3 -m training.rl --config /dev/shm/h200.json --init $I --out /dev/shm/rl_$R --reward $R \
      --no-feedback --kernelbench .kb --time-limit $TL --train-until $(( T0 + ${HARD:-560} - AFTER_S )) --seed ${SEED:-0} ${STEPS:+--max-steps $STEPS} --no-eval-after $EXTRA > $L/rl_$R.log 2>&1
    echo "rc=$?" >> $L/rl_$R.log ) &
  echo $! > /dev/shm/pid_$R
  echo "$R: init $I $EXTRA" >> $L/env.txt
done
log "started $RUNS, --time-limit $TL"
while [ $(el) -lt ${HARD:-560} ]; do
  sleep 5
  alive=0; for R in $RUNS; do kill -0 $(cat /dev/shm/pid_$R) 2>/dev/null && alive=1; done
  [ $alive = 1 ] || break
done
for R in $RUNS; do pkill -TERM -f "out /dev/shm/rl_$R" 2>/dev/null; done
sleep 2
log "runs over"; for R in $RUNS; do grep -E "^rl:|^rc=|Traceback" $L/rl_$R.log | tail -8; done
# held-out "after", one run at a time with every verifier job; skipped for a run without a whole final
for R in $RUNS; do
  D=/dev/shm/rl_$R; LEFT=$(( ${HARD:-560} - $(el) - 15 ))
  [ -f $D/final/tritonrl.json ] && [ -f $D/prompts.jsonl ] && [ $LEFT -gt 60 ] || { log "no held-out after for $R"; continue; }
  log "held-out after: $R (${LEFT}s left)"
  timeout -k 5 $LEFT python3 benchmarks/heldout_eval.py --prompts $D/prompts.jsonl --model $D/final --n ${EVAL_N:-4} \
    --seed 0 --jobs 14 --device cuda --rows-per-pass 16 --out $L/heldout_after_$R.json --append-to $D > $L/heldout_after_$R.log 2>&1
  tail -1 $L/heldout_after_$R.log
done
for R in $RUNS; do
  D=/dev/shm/rl_$R; mkdir -p $L/$R
  cp $D/heldout.jsonl $D/log_history.json $D/curves.png $D/prompts.jsonl $D/rollouts.jsonl $L/$R/ 2>/dev/null
  # no log_history.json when a run was stopped: take the trainer state of its last checkpoint
  C=$(ls -d $D/checkpoint-* 2>/dev/null | sort -t- -k2 -n | tail -1)
  [ -n "$C" ] && cp $C/trainer_state.json $L/$R/ 2>/dev/null
  F=$D/final; [ -f $F/config.json ] || F=$C
  case " ${PACK:-$RUNS} " in *" $R "*) ;; *) continue ;; esac
  # the update, not the weights: final - init in bf16 (benchmarks/rl_delta.py: a bf16 cast of the final rounded
  # away part of an update this small). Rebuild it here with `python benchmarks/rl_delta.py unpack`.
  V=INIT_${R^^}; I=${!V:-$INIT}
  # a LoRA run: its adapter is the update (a few MB); here `python benchmarks/rl_delta.py merge` rebuilds final/
  A=$D/final_adapter; [ -f $A/adapter_config.json ] || A=$C  # no final: a LoRA run's checkpoints are adapters
  if [ -n "$A" ] && [ -f $A/adapter_config.json ]; then mkdir -p /dev/shm/pack/rl_$R/final_adapter \
    && cp $A/adapter_config.json $A/adapter_model.safetensors $A/trainer_state.json /dev/shm/pack/rl_$R/final_adapter/ 2>/dev/null
    cp $D/final/tritonrl.json /dev/shm/pack/rl_$R/ 2>/dev/null; continue; fi
  [ -n "$F" ] && [ -f $F/config.json ] && python3 benchmarks/rl_delta.py pack --final $F --init $I --out /dev/shm/pack/rl_$R 2>&1 | tail -1
done
for R in $RUNS; do tail -c 40000 $L/rl_$R.log > $L/rl_${R}_tail.log; rm -f $L/rl_$R.log; done
tar -C /dev/shm -czf $OUT/logs.tgz logs
for R in ${PACK:-$RUNS}; do [ -d /dev/shm/pack/rl_$R ] && tar -C /dev/shm/pack -cf - rl_$R | split -b 15m - $OUT/rl_$R.tar.part-; done
ls -l $OUT; log done
