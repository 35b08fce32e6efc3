#!/bin/bash
# One device call: grow data/corpus.jsonl on the H200's 16 cores (the same generator command as the data
# card's, a larger --n, --resume keeps every committed line), verifying the new samples on the GPU, and
# run tests/test_gpu.py alongside. Returns the corpus, the generator's log and the test log under $OUT.
#   N      --n of the generator (default 3000)   PAR  samples verified at once (default 12)
#   GEN_S  seconds the generator may run (default 480); it is stopped after that, every line written so
#          far is kept (a later call, or this machine, continues it with --resume)
#   TESTS=0 skips tests/test_gpu.py
# carry: [".whl", ".kb"] (.kb = a copy of ../shared/kernelbench, for the novelty guard)
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }; log() { echo "[$(el)s] $*"; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD TRITONRL_TMPDIR=/dev/shm PYTHONUNBUFFERED=1 TRL_EXPERIMENTAL_SILENCE=1
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; } > $OUT/env.txt 2>&1
if [ "${TESTS:-1}" = 1 ]; then
  ( timeout -k 10 ${TEST_S:-420} python3 -m pytest -q -p no:cacheprovider -o addopts= tests/test_gpu.py > $OUT/test_gpu.log 2>&1
    echo "rc=$?" >> $OUT/test_gpu.log ) &
fi
log "generate --n ${N:-3000}"
before=$(wc -l < data/corpus.jsonl)
timeout -s INT -k 20 ${GEN_S:-480} python3 -m training.data.generate --n ${N:-3000} --seed 0 --out data/corpus.jsonl \
  --parallel ${PAR:-12} --resume --kernelbench .kb > $OUT/generate.log 2>&1
log "generate rc=$? lines $before -> $(wc -l < data/corpus.jsonl)"
cp data/corpus.jsonl $OUT/corpus.jsonl
wait
tail -5 $OUT/test_gpu.log 2>/dev/null
tail -5 $OUT/generate.log
log done
