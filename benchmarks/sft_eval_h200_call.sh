#!/bin/bash
# Follow-up device call to sft_h200_call.sh on the same warm machine: measure each seed's bf16 model in
# /dev/shm/model_s<SEED> (or, on a fresh machine, in MODELS_DIR/model_s<SEED>, carried), side by side:
#   - the held-out split of the RL prompt set (development set; choose among seeds here, never on KernelBench)
#   - the hand-written modules, n=8 each (benchmarks/module_pass_rate.py, GPU verdicts)
#   - the language server's generate -> verified latency for LSP_SEED (default: the first seed; LSP_S=0 skips)
# Everything comes back in $OUT/eval_logs.tar.
#   SEEDS (default "0 1"), HELD_S (default 150), MOD_S (default 120), LSP_S (default 150), MODELS_DIR (default /dev/shm)
set -u
SEEDS=${SEEDS:-0 1}; set -- $SEEDS; NS=$#; LSP_SEED=${LSP_SEED:-$1}; M=${MODELS_DIR:-/dev/shm}
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }; log() { echo "[$(el)s] $*"; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD TRITONRL_TMPDIR=/dev/shm PYTHONUNBUFFERED=1 TRL_EXPERIMENTAL_SILENCE=1
L=/dev/shm/eval_logs; rm -rf $L; mkdir -p $L
for S in $SEEDS; do [ -f $M/model_s$S/config.json ] || { echo "no model at $M/model_s$S (machine went cold?)"; exit 3; }; done
log "held-out + modules, seeds: $SEEDS"
for S in $SEEDS; do
  ( timeout -k 10 ${HELD_S:-150} python3 benchmarks/heldout_eval.py --model $M/model_s$S --n 4 --seed 0 \
      --jobs $(( 12 / NS )) --device cuda --out $L/heldout_s$S.json > $L/heldout_s$S.log 2>&1
    echo "rc=$?" >> $L/heldout_s$S.log ) &
done
wait; log "held-out done"
for S in $SEEDS; do echo "seed $S held-out: $(tail -c 160 $L/heldout_s$S.json 2>/dev/null)"; done
MODS=""; for S in $SEEDS; do MODS="$MODS --model $M/model_s$S"; done
timeout -k 10 ${MOD_S:-120} python3 benchmarks/module_pass_rate.py $MODS -n 8 --seed 0 --device cuda \
  --out $L/module_pass_rate_h200.md > $L/modules.log 2>&1; log "modules rc=$?"; cat $L/module_pass_rate_h200.md
if [ "${LSP_S:-150}" != 0 ]; then
  timeout -k 10 ${LSP_S:-150} python3 benchmarks/lsp_suggest_latency.py --model $M/model_s$LSP_SEED --device cuda \
    --out $L/lsp_suggest_latency_h200.md > $L/lsp.log 2>&1; log "lsp rc=$?"; tail -6 $L/lsp_suggest_latency_h200.md
fi
tar cf $OUT/eval_logs.tar -C /dev/shm eval_logs
log done
