#!/usr/bin/env bash
# Install the project and what its tests need, on a fresh machine with Python 3.11 and pip.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
"$PY" -m pip install -q --disable-pip-version-check -e '.[dev]'
# Neovim drives the language server in tests/test_nvim.py (a real editor's LSP client). Installed only
# where it can be: apt-get present, running as root, and no nvim yet; elsewhere that test is skipped.
if ! command -v nvim >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null) \
    || echo "setup: could not install neovim; tests/test_nvim.py will be skipped" >&2
fi
