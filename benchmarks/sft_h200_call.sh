#!/bin/bash
# One device call: SFT the small model on the committed corpora, one run per seed side by side on the one GPU, cast
# each to bf16 (the embedded default's form), then measure each: held-out split of the RL prompt set (the
# development set: choose among seeds there, never on KernelBench), and, for the first seed, the language server's
# generate -> verified latency.
# Each checkpoint comes back as $OUT/model_s<SEED>.tar.part-* (cat them | tar x gives model_s<SEED>/); logs and
# held-out results come back in $OUT/logs.tar (the device tool returns at most 8 files of 16 MiB: two seeds' models
# take 4). HELD_S=0 / LSP_S=0 skip those steps; the machine's /dev/shm/sft_s<SEED> keeps each run for a follow-up call.
#   SEEDS (default "0"), RUNS (default: "small:SEED" for each seed; "CONFIG:SEED ..." trains other configs, e.g.
#   RUNS="small:0 medium:0"; a run other than small's is named <config>_s<SEED>: model_medium_s0), STEPS (default 1700), SFT_MIN (time limit, minutes), SFT_S (hard cap, seconds: by default
#   SFT_MIN plus 90 s for loading and the final save), PROMPTS (an RL prompts.jsonl; default the committed benchmarks/rl_prompts_h200.jsonl), HELD_S, LSP_S, HELD_N; RESUME=1
#   continues the runs in /dev/shm (a warm machine's) instead of starting afresh; DATA the corpus files (default
#   "data/corpus.jsonl data/corpus_tiny.jsonl"; a snapshot of a corpus still growing, say)
#   TRAIN=0 skips training and measures the bf16 models a warm machine's /dev/shm/model_s<SEED> still holds (the
#   follow-up call when training fills a call); MOD_S>0 adds the hand-written modules, n=8, GPU verdicts, every seed
#   (benchmarks/module_pass_rate.py)
# The working tree with the shipped default model is over the device tool's 64 MiB: first
#   bash scripts/device_slim.sh hide training/default_model/model.safetensors   (restore after the call)
set -u
SFT_MIN=${SFT_MIN:-5.0}
NEED_S=$(python3 -c "print(int(float('$SFT_MIN') * 60 + 90))"); SFT_S=${SFT_S:-$NEED_S}
# a cap below the time limit kills training before its own time limit saves the final checkpoint
[ "$SFT_S" -lt "$NEED_S" ] && { echo "SFT_S=$SFT_S is below SFT_MIN*60+90=$NEED_S: the final save would be killed" >&2; exit 2; }
SEEDS=${SEEDS:-0}; RUNS=${RUNS:-$(for S in $SEEDS; do printf 'small:%s ' $S; done)}
# one tag per run: s<SEED> for the small config (the names earlier calls used), <config>_s<SEED> otherwise
tag() { C=${1%%:*}; S=${1##*:}; [ $C = small ] && echo s$S || echo ${C}_s$S; }
TAGS=$(for R in $RUNS; do tag $R; done)
set -- $TAGS; NS=$#; FIRST=$1
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }; log() { echo "[$(el)s] $*"; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD TRITONRL_TMPDIR=/dev/shm PYTHONUNBUFFERED=1 TRL_EXPERIMENTAL_SILENCE=1
P=${PROMPTS:-benchmarks/rl_prompts_h200.jsonl}
L=/dev/shm/sft_logs; rm -rf $L; mkdir -p $L
if [ "${TRAIN:-1}" = 1 ]; then
  log "sft, runs: $RUNS"
  for R in $RUNS; do
    C=${R%%:*}; S=${R##*:}; T=$(tag $R)
    [ "${RESUME:-0}" = 1 ] || rm -rf /dev/shm/sft_$T
    ( timeout -k 10 $SFT_S python3 -m training.sft --config $C --data ${DATA:-data/corpus.jsonl data/corpus_tiny.jsonl} \
        --out /dev/shm/sft_$T --max-steps ${STEPS:-1700} --time-limit $SFT_MIN --seed $S > $L/sft_$T.log 2>&1
      echo "rc=$?" >> $L/sft_$T.log ) &
  done
  wait; log "trained"
  for T in $TAGS; do
    echo "$T: $(grep -E 'train_loss' $L/sft_$T.log | tail -1 | cut -c1-200) $(tail -1 $L/sft_$T.log)"
    python3 - /dev/shm/sft_$T/final /dev/shm/model_$T <<'PY' >> $L/sft_$T.log 2>&1
import json, shutil, sys, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
src, dst = sys.argv[1], sys.argv[2]
m = AutoModelForCausalLM.from_pretrained(src, dtype=torch.bfloat16)
m.save_pretrained(dst, safe_serialization=True)
AutoTokenizer.from_pretrained(src).save_pretrained(dst)
shutil.copy(f"{src}/tritonrl.json", dst)
print("bf16 model:", sum(p.numel() for p in m.parameters()), "params", json.load(open(f"{dst}/tritonrl.json")))
PY
    cp -r /dev/shm/sft_$T/runs /dev/shm/model_$T/sft_tb 2>/dev/null
    tar cf - -C /dev/shm model_$T | split -b 15M - $OUT/model_$T.tar.part-
  done
  ls -la $OUT
fi
if [ "${HELD_S:-110}" != 0 ]; then
  log "held-out"
  for T in $TAGS; do
    timeout -k 10 ${HELD_S:-110} python3 benchmarks/heldout_eval.py --prompts $P --model /dev/shm/model_$T --n ${HELD_N:-4} \
      --seed 0 --jobs $(( 14 / NS )) --device cuda --out $L/heldout_$T.json > $L/heldout_$T.log 2>&1 &
  done
  wait; log "held-out done"
  for T in $TAGS; do echo "$T: $(tail -c 200 $L/heldout_$T.json 2>/dev/null)"; done
fi
if [ "${MOD_S:-0}" != 0 ]; then
  log "hand-written modules"; MODS=""; for T in $TAGS; do MODS="$MODS --model /dev/shm/model_$T"; done
  timeout -k 10 $MOD_S python3 benchmarks/module_pass_rate.py $MODS -n 8 --seed 0 --device cuda \
    --out $L/module_pass_rate_h200.md > $L/modules.log 2>&1; log "rc=$?"; cat $L/module_pass_rate_h200.md
fi
if [ "${LSP_S:-150}" != 0 ]; then
  log "lsp latency ($FIRST)"
  timeout -k 10 ${LSP_S:-150} python3 benchmarks/lsp_suggest_latency.py --model /dev/shm/model_$FIRST --device cuda \
    --out $L/lsp_suggest_latency_h200.md > $L/lsp.log 2>&1; log "rc=$?"; tail -4 $L/lsp_suggest_latency_h200.md
fi
tar cf $OUT/logs.tar -C /dev/shm sft_logs
log done
