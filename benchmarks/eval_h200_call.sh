#!/bin/bash
# One device call: held-out correct rate of an SFT checkpoint and of its GRPO continuation on the run's held-out
# split (same samples seeds), then KernelBench level 1 on the default model's op families for both.
#   SFT, RL   checkpoints (default .scratch/ckpt/sft_small and .scratch/ckpt/rl_hrd3)
#   PROMPTS   the GRPO run's prompts.jsonl (default .scratch/ckpt/rl_prompts.jsonl)
#   KB_N      samples per KernelBench problem (default 2); HARD  seconds after which everything stops
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }; log() { echo "[$(el)s] $*"; }
L=/dev/shm/logs; mkdir -p $L
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD TRITONRL_TMPDIR=/dev/shm PYTHONUNBUFFERED=1 TRL_EXPERIMENTAL_SILENCE=1
SFT=${SFT:-.scratch/ckpt/sft_small}; RL=${RL:-.scratch/ckpt/rl_hrd3}; P=${PROMPTS:-.scratch/ckpt/rl_prompts.jsonl}
HARD=${HARD:-560}
ONLY=19_ReLU,20_LeakyReLU,21_Sigmoid,22_Tanh,25_Swish,26_GELU_,28_HardSigmoid,29_Softplus,30_Softsign,32_HardTanh,23_Softmax,24_LogSoftmax,36_RMSNorm_,38_L1Norm_,39_L2Norm_,40_LayerNorm,1_Square_matrix_multiplication_,2_Standard_matrix_multiplication_,3_Batched_matrix_multiplication,4_Matrix_vector_multiplication_,6_Matmul_with_large_K_dimension_,7_Matmul_with_small_K_dimension_,8_Matmul_with_irregular_shapes_,9_Tall_skinny_matrix_multiplication_,16_Matmul_with_transposed_A,17_Matmul_with_transposed_B,51_Argmax_over_a_dimension,52_Argmin_over_a_dimension,47_Sum_reduction_over_a_dimension,48_Mean_reduction_over_a_dimension,49_Max_reduction_over_a_dimension,53_Min_reduction_over_a_dimension,94_MSELoss,96_HuberLoss,100_HingeLoss
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc
  python3 -c "import torch, triton, transformers; print('torch', torch.__version__, 'triton', triton.__version__, 'transformers', transformers.__version__)"; } > $L/env.txt 2>&1
pack() { tar -C /dev/shm -czf $OUT/logs.tgz logs; }
trap pack EXIT
for M in sft:$SFT rl:$RL; do
  T=${M%%:*}; C=${M#*:}
  log "held-out $T ($C)"
  timeout 150 python3 benchmarks/heldout_eval.py --prompts $P --model $C --n 4 --seed 0 --jobs 14 --device cuda \
    --out $L/heldout_$T.json > $L/heldout_$T.log 2>&1; log "rc=$?"; tail -c 600 $L/heldout_$T.json 2>/dev/null | cut -c1-400
done
for M in sft:$SFT rl:$RL; do
  T=${M%%:*}; C=${M#*:}
  LEFT=$(( (HARD - $(el)) )); [ $T = sft ] && LEFT=$(( LEFT / 2 ))
  log "KernelBench L1 families, $T, ${LEFT}s"
  [ $LEFT -gt 30 ] || continue
  timeout -s INT -k 15 $LEFT python3 -m training.eval --model $C --problems .kb --level level1 --only $ONLY \
    -n ${KB_N:-2} -k 1 --device cuda --max-new-tokens 1024 --jobs 6 --seed 0 --out /dev/shm/kb_$T > $L/kb_$T.log 2>&1
  log "rc=$?"
  E=/dev/shm/kb_$T
  if [ -f $E/results.jsonl ] && { [ ! -f $E/summary.json ] || [ $E/results.jsonl -nt $E/summary.json ]; }; then
    timeout 30 python3 - $E $ONLY <<'PY'
import json, sys
from pathlib import Path
from training.eval import ResultsLog, build_report, write_outputs
out = Path(sys.argv[1]); rows = list(ResultsLog(out / 'results.jsonl').load().values())
cfg = json.loads((out / 'run.json').read_text()); cfg.update(k=[1], problems='.kb', levels=['level1'], only=sys.argv[2].split(','))
write_outputs(out, build_report(rows, [], cfg, True, 'rebuilt from results.jsonl after the time limit', 0.0))
print('rebuilt', len(rows))
PY
  fi
  mkdir -p $L/kb_$T; cp $E/summary.json $E/table.md $E/results.jsonl $E/run.json $E/summary.png $L/kb_$T/ 2>/dev/null
  head -12 $E/table.md 2>/dev/null
done
log done
