#!/usr/bin/env bash
# The test command of the README's Quick start: set up, then run the CPU test suite and, where npm is
# installed, the VS Code extension's lint and unit tests (vscode-extension/: npm ci, lint, test).
# TRITONRL_SKIP_EXTENSION=1 skips the extension (e.g. when running a few Python tests by hand).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1

# The extension first: about 20 s (npm ci from the npm cache, tsc + eslint, node --test), so a
# broken extension shows early; pytest runs either way and the exit status reports both.
ext=0
if [ "${TRITONRL_SKIP_EXTENSION:-0}" = 1 ]; then
  echo "test.sh: extension tests skipped (TRITONRL_SKIP_EXTENSION=1)"
elif ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "test.sh: npm/node not found: SKIPPING the VS Code extension's lint and unit tests (install Node >= 20 to run them)"
else
  echo "test.sh: VS Code extension: npm ci, npm run lint, npm test"
  # --prefer-offline: packages already in the npm cache are not re-fetched (works offline once cached)
  (cd vscode-extension && npm ci --prefer-offline --no-audit --no-fund && npm run lint && npm test) || ext=1
  [ $ext -eq 0 ] || echo "test.sh: the VS Code extension's install, lint or unit tests FAILED (see above)"
fi

PY=${PYTHON:-python3}
"$PY" -m pytest -q -p no:cacheprovider "$@"
rc=$?
# pytest exits 5 when it collected no tests: that is a failure for us, not a pass.
[ $rc -eq 5 ] && { echo "no tests collected"; rc=1; }
[ $ext -eq 0 ] || { echo "test.sh: FAILED: VS Code extension tests (pytest exit status $rc)"; [ $rc -ne 0 ] || rc=1; }
exit $rc
