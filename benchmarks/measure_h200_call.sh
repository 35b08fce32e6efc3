#!/bin/bash
# One device call that measures the embedded default model and the verifier on the H200:
#   1. dot_precision.py: the corpus's GEMM samples with tl.dot as written (TF32 on the GPU), ieee and tf32x3;
#   2. lsp_suggest_latency.py: generate command -> first verified suggestion, 5 level-1-style modules;
#   3. training.eval on KernelBench level 1's op families (the model card's list), until HARD seconds.
# Also, when named in STEPS: ref (benchmarks/reference_latency.py, REF_S seconds), gputests (tests/test_gpu.py, GPU_S seconds), warm (benchmarks/warm_compile.py, WARM_S
# seconds) and lsplazy (step 2 with the server's lazyBaseline setting on, to compare with lsp),
# e.g. STEPS="gputests warm lsp lsplazy".
# Each step writes under $OUT as it goes, so a step cut off by its limit still returns what it measured.
#   MODEL (default: the embedded default), DOT_S, LSP_S, KB_N, HARD, STEPS (default "dot lsp kb")
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }; log() { echo "[$(el)s] $*"; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD TRITONRL_TMPDIR=/dev/shm PYTHONUNBUFFERED=1 TRL_EXPERIMENTAL_SILENCE=1
HARD=${HARD:-570}; STEPS=${STEPS:-"dot lsp kb"}; MODEL=${MODEL:-}
MARG=${MODEL:+--model $MODEL}
ONLY=$(sed -n 's/^ONLY=//p' benchmarks/eval_h200_call.sh)
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc
  python3 -c "import torch, triton, transformers; print('torch', torch.__version__, 'triton', triton.__version__, 'transformers', transformers.__version__)"; } > $OUT/env.txt 2>&1
for S in $STEPS; do case $S in
  dot) log "dot precision"
    timeout -k 10 ${DOT_S:-150} python3 benchmarks/dot_precision.py --device cuda --limit ${DOT_LIMIT:-12} --parallel 6 \
      --out $OUT/dot_precision_h200.md > $OUT/dot.log 2>&1; log "rc=$?"; tail -3 $OUT/dot_precision_h200.md ;;
  lsp) log "lsp latency"
    timeout -k 10 ${LSP_S:-240} python3 benchmarks/lsp_suggest_latency.py $MARG --device cuda ${LSP_ARGS:-} \
      --out $OUT/lsp_suggest_latency_h200.md > $OUT/lsp.log 2>&1; log "rc=$?"; tail -4 $OUT/lsp_suggest_latency_h200.md ;;
  gputests) log "tests/test_gpu.py"
    timeout -k 10 ${GPU_S:-300} python3 -m pytest -q -p no:cacheprovider -p no:asyncio -p no:pytest-lsp -o addopts= \
      tests/test_gpu.py ${GPU_K:+-k "$GPU_K"} -v > $OUT/test_gpu.log 2>&1; log "rc=$?"; tail -5 $OUT/test_gpu.log ;;
  ref) log "reference run latency"
    timeout -k 10 ${REF_S:-120} python3 benchmarks/reference_latency.py --device cuda --reps ${REF_REPS:-3} --profile \
      --out $OUT/reference_latency_h200.md > $OUT/ref.log 2>&1; log "rc=$?"; sed -n 10,17p $OUT/reference_latency_h200.md ;;
  warm) log "first candidate forward with and without the worker's warm-up kernel"
    timeout -k 10 ${WARM_S:-120} python3 benchmarks/warm_compile.py --device cuda --reps ${WARM_REPS:-1} \
      --out $OUT/warm_compile_h200.md > $OUT/warm.log 2>&1; log "rc=$?"; tail -8 $OUT/warm_compile_h200.md ;;
  lsplazy) log "lsp latency, lazy baseline"
    timeout -k 10 ${LSP_S:-240} python3 benchmarks/lsp_suggest_latency.py $MARG --device cuda --lazy-baseline ${LSP_ARGS:-} \
      --out $OUT/lsp_suggest_latency_lazy_h200.md > $OUT/lsp_lazy.log 2>&1; log "rc=$?"; tail -4 $OUT/lsp_suggest_latency_lazy_h200.md ;;
  kb) LEFT=$(( HARD - $(el) )); log "KernelBench L1 families, ${LEFT}s"
    [ $LEFT -gt 30 ] || continue
    timeout -s INT -k 15 $LEFT python3 -m training.eval --model ${MODEL:-training/default_model} --problems .kb --level level1 --only $ONLY \
      -n ${KB_N:-2} -k 1 --device cuda --max-new-tokens 1024 --jobs ${KB_JOBS:-6} --seed 0 --out $OUT/kb > $OUT/kb.log 2>&1
    log "rc=$?"; E=$OUT/kb
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
    head -14 $OUT/kb/table.md 2>/dev/null; wc -l $OUT/kb/results.jsonl ;;
esac; done
log done
