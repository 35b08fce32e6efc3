import assert from "node:assert/strict";
import { test } from "node:test";
import { configuredModel, serverLaunch, serverOptions } from "../src/config";

test("python -m lsp_server --stdio by default, the server path when set", () => {
  assert.deepEqual(serverLaunch({}), { command: "python3", args: ["-m", "lsp_server", "--stdio"],
    display: "python3 -m lsp_server --stdio" });
  assert.equal(serverLaunch({ pythonPath: " /opt/venv/bin/python " }).command, "/opt/venv/bin/python");
  const s = serverLaunch({ pythonPath: "/x/python", serverPath: "/my tools/tritonrl-lsp" });
  assert.deepEqual([s.command, s.args], ["/my tools/tritonrl-lsp", ["--stdio"]]);
  assert.equal(s.display, "'/my tools/tritonrl-lsp' --stdio");
  assert.equal(serverLaunch({ serverPath: "  " }).command, "python3");
});

test("initializationOptions keep the server's keys and drop unset values", () => {
  const opts = serverOptions({
    pythonPath: "/x/python", serverPath: "", model: null, endpoint: " http://127.0.0.1:8000 ", servedModel: "",
    backend: "auto", device: "cpu", n: 2, turns: 1, trials: null, verifyTimeoutS: 30, modelTimeoutS: 600,
    maxNewTokens: 2048, feedbackDb: "/tmp/fb.sqlite3", lazyBaseline: null,
  });
  assert.deepEqual(opts, {
    endpoint: "http://127.0.0.1:8000", backend: "auto", device: "cpu", n: 2, turns: 1, verifyTimeoutS: 30,
    modelTimeoutS: 600, maxNewTokens: 2048, feedbackDb: "/tmp/fb.sqlite3",
  });
  assert.deepEqual(serverOptions({ lazyBaseline: false }), { lazyBaseline: false });
  assert.deepEqual(serverOptions({ warmStart: false }), { warmStart: false });
  assert.deepEqual(serverOptions({ n: Number.NaN }), {});
});

test("the status bar names the model from the settings", () => {
  assert.equal(configuredModel({ endpoint: "http://h:1", servedModel: "qwen" }), "qwen @ http://h:1");
  assert.equal(configuredModel({ endpoint: "http://h:1" }), "http://h:1");
  assert.equal(configuredModel({ model: "/ckpt/run7/final/" }), "final");
  assert.equal(configuredModel({ model: "", endpoint: null }), "no model");
});
