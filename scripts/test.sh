#!/usr/bin/env bash
# The test command of the README's Quick start: set up, then run the CPU test suite.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
PY=${PYTHON:-python3}
"$PY" -m pytest -q -p no:cacheprovider "$@"
rc=$?
# pytest exits 5 when it collected no tests: that is a failure for us, not a pass.
[ $rc -eq 5 ] && { echo "no tests collected"; exit 1; }
exit $rc
