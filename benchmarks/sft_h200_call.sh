#!/bin/bash
# One device call: SFT the small model on the committed corpora, cast it to bf16 (the embedded default's form),
# then measure it: held-out split of the RL prompt set, and the language server's generate -> verified latency.
# The checkpoint comes back as $OUT/model_new.tar.part-* (cat them | tar x); HELD_S=0 / LSP_S=0 skip those steps; the machine's /dev/shm/sft keeps the run for a follow-up call.
#   STEPS (default 1700), SFT_MIN (time limit, minutes), SFT_S (hard cap, seconds: by default SFT_MIN plus 90 s for
#   loading and the final save), PROMPTS (an RL prompts.jsonl), HELD_S, LSP_S, HELD_N; RESUME=1 continues the run in
#   /dev/shm/sft (a warm machine's) instead of starting afresh
set -u
SFT_MIN=${SFT_MIN:-5.0}
NEED_S=$(python3 -c "print(int(float('$SFT_MIN') * 60 + 90))"); SFT_S=${SFT_S:-$NEED_S}
# a cap below the time limit kills training before its own time limit saves the final checkpoint
[ "$SFT_S" -lt "$NEED_S" ] && { echo "SFT_S=$SFT_S is below SFT_MIN*60+90=$NEED_S: the final save would be killed" >&2; exit 2; }
[ "${RESUME:-0}" = 1 ] || rm -rf /dev/shm/sft
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }; log() { echo "[$(el)s] $*"; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD TRITONRL_TMPDIR=/dev/shm PYTHONUNBUFFERED=1 TRL_EXPERIMENTAL_SILENCE=1
P=${PROMPTS:-.scratch/rl_prompts.jsonl}
log "sft"
timeout -k 10 $SFT_S python3 -m training.sft --config small --data data/corpus.jsonl data/corpus_tiny.jsonl \
  --out /dev/shm/sft --max-steps ${STEPS:-1700} --time-limit $SFT_MIN > $OUT/sft.log 2>&1; log "rc=$?"
grep -E "train_loss|saved" $OUT/sft.log | tail -2
python3 - <<'PY'
import json, os, shutil, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
src, dst = "/dev/shm/sft/final", "/dev/shm/model_new"
m = AutoModelForCausalLM.from_pretrained(src, dtype=torch.bfloat16)
m.save_pretrained(dst, safe_serialization=True)
AutoTokenizer.from_pretrained(src).save_pretrained(dst)
shutil.copy(f"{src}/tritonrl.json", dst)
print("bf16 model:", sum(p.numel() for p in m.parameters()), "params", json.load(open(f"{dst}/tritonrl.json")))
PY
# the device tool brings back at most 8 files of 16 MiB: the model and the TensorBoard run as a split tar
cp -r /dev/shm/sft/runs /dev/shm/model_new/sft_tb 2>/dev/null
tar cf - -C /dev/shm model_new | split -b 15M - $OUT/model_new.tar.part-; ls -la $OUT
if [ "${HELD_S:-110}" != 0 ]; then
  log "held-out"
  timeout -k 10 ${HELD_S:-110} python3 benchmarks/heldout_eval.py --prompts $P --model /dev/shm/model_new --n ${HELD_N:-4} --seed 0 \
    --jobs 14 --device cuda --out $OUT/heldout_new.json > $OUT/heldout.log 2>&1; log "rc=$?"
  tail -c 300 $OUT/heldout_new.json 2>/dev/null; echo
fi
[ "${LSP_S:-150}" = 0 ] && { log done; exit 0; }
log "lsp latency"
timeout -k 10 ${LSP_S:-150} python3 benchmarks/lsp_suggest_latency.py --model /dev/shm/model_new --device cuda \
  --out $OUT/lsp_suggest_latency_h200.md > $OUT/lsp.log 2>&1; log "rc=$?"; tail -4 $OUT/lsp_suggest_latency_h200.md
log done
