#!/bin/bash
# One device call: the GPU tests of the verifier (tests/test_gpu.py, -k K), then the replay A/B of logged RL steps
# per verifier mode (benchmarks/rl_verify_replay.py). Run 2026-12-07 on an H100: benchmarks/results/timing_ab_h100_20261207.
# Here, first:
#   mkdir -p .scratch/dev && cp benchmarks/results/rl_lora_sft519_h100_20261207/rl_hrd/rollouts.jsonl.gz .scratch/dev/sft519_rollouts.jsonl.gz
#   bash scripts/device_slim.sh hide data/corpus.jsonl benchmarks/results data/corpus_norm_dims.jsonl   (restore after)
# carry [".whl", ".kb", ".scratch/dev"] (.whl: bash scripts/device_wheels.sh; .kb: cp -r ../shared/kernelbench .kb); e.g.
#   K="batch_timing or timing_cheats" TEST_S=150 HARD=570 STEPS="0 2" bash benchmarks/timing_ab_call.sh
#   K          pytest -k expression for tests/test_gpu.py (default: every test); TEST_S its limit (default 230 s)
#   HARD       seconds the whole call may take (default 570); the replay gets what the tests left
#   STEPS      logged steps to replay (default 0); MODES (default "one-by-one one-by-one:42 one-by-one": RL's
#              verifier as it is, with a warm pool three times the jobs deep, and as it is again, for the order
#              effect; a mode is one-by-one, batch or batch+patience, optionally :POOL_SIZE)
#   TAIL_S     no (step, mode) starts later than TAIL_S before the end (default 130: a one-by-one step took ~105 s)
#   ROLLOUTS   default .scratch/dev/sft519_rollouts.jsonl.gz
T0=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD TRITONRL_TMPDIR=/dev/shm PYTHONUNBUFFERED=1 TRL_EXPERIMENTAL_SILENCE=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/env.txt; nproc >> $OUT/env.txt
python3 -c "from verifier.sandbox import isolation_mechanism as m; print('sandbox', *m())" >> $OUT/env.txt 2>&1
git log --oneline -1 >> $OUT/env.txt
timeout -k 10 ${TEST_S:-230} python3 -m pytest -q -p no:cacheprovider -p no:asyncio -p no:pytest-lsp -o addopts= -rs \
  --durations=0 tests/test_gpu.py ${K:+-k "$K"} > $OUT/test_gpu.log 2>&1
tail -25 $OUT/test_gpu.log
LEFT=$(( ${HARD:-570} - ($(date +%s) - T0) ))
echo "replay: $LEFT s left"
R=$(realpath ${ROLLOUTS:-.scratch/dev/sft519_rollouts.jsonl.gz})
cd benchmarks && timeout -k 5 $((LEFT - 10)) python3 rl_verify_replay.py "$R" --steps ${STEPS:-0} --jobs 14 \
  --modes ${MODES:-one-by-one one-by-one:42 one-by-one} --time-limit $((LEFT - ${TAIL_S:-130})) > $OUT/replay.md 2> $OUT/replay.err
cat $OUT/replay.md; tail -5 $OUT/replay.err
