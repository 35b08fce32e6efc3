#!/usr/bin/env bash
# The device tool copies the working tree (tracked files and untracked ones git does not ignore) and refuses one
# over 64 MiB; the shipped default model alone is 52 MB. `hide PATH...` moves tracked paths a device call does not
# need into .scratch/device_hidden/ (ignored, so not copied); `restore` puts every hidden path back; `status` lists
# them. Run `restore` right after the call: until then git sees the paths as deleted.
#   bash scripts/device_slim.sh hide training/default_model/model.safetensors   # SFT and RL from a new checkpoint
#   bash scripts/device_slim.sh hide data                                       # RL from the shipped model
#   bash scripts/device_slim.sh hide data/corpus.jsonl                          # tests/test_gpu.py (its RL test's
#                                   fixture trains on data/corpus_tiny.jsonl: hiding all of data/ errored it, 2026-12-06)
set -euo pipefail
cd "$(dirname "$0")/.."
H=.scratch/device_hidden
case "${1:-status}" in
  hide)
    shift
    for p in "$@"; do
      [ -e "$p" ] || { echo "no such path: $p" >&2; exit 2; }
      [ -e "$H/$p" ] && { echo "already hidden: $p" >&2; exit 2; }
      mkdir -p "$H/$(dirname "$p")"; mv "$p" "$H/$p"; echo "hidden: $p"
    done ;;
  restore)
    [ -d $H ] || exit 0
    find $H -mindepth 1 \( -type f -o -type l \) -print | while read -r f; do
      p=${f#$H/}; [ -e "$p" ] && { echo "both copies exist, left alone: $p" >&2; continue; }
      mkdir -p "$(dirname "$p")"; mv "$f" "$p"; echo "restored: $p"
    done
    find $H -depth -type d -empty -delete ;;
  status)
    [ -d $H ] && find $H -type f | sed "s|^$H/|hidden: |" || true
    echo "tree the device tool copies: $(git ls-files -z --cached --others --exclude-standard | \
      xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1) bytes (limit 67108864, plus what carry names)" ;;
  *) echo "usage: $0 hide PATH... | restore | status" >&2; exit 2 ;;
esac
