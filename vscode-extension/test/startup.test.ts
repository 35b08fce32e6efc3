import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { explainStartFailure, lastMeaningfulLine, Tail } from "../src/startup";

test("a missing interpreter is named, with what to set", () => {
  const m = explainStartFailure({ commandLine: "python9 -m lsp_server --stdio",
    spawnError: { code: "ENOENT", message: "spawn python9 ENOENT" } });
  assert.match(m, /“python9” was not found/);
  assert.match(m, /tritonrl\.pythonPath/);
  assert.doesNotMatch(m, /client is not running/);
});

test("an early exit quotes the last stderr line", () => {
  const stderr = "Traceback (most recent call last):\n  File \"<frozen runpy>\", line 189\n" +
    "ModuleNotFoundError: No module named 'lsp_server'\n\n";
  const m = explainStartFailure({ commandLine: "python3 -m lsp_server --stdio", exitCode: 1, stderr });
  assert.equal(lastMeaningfulLine(stderr), "ModuleNotFoundError: No module named 'lsp_server'");
  assert.match(m, /exited with code 1 while starting \(python3 -m lsp_server --stdio\): ModuleNotFoundError/);
  assert.match(m, /pip install/);
  assert.match(explainStartFailure({ commandLine: "x", signal: "SIGKILL" }), /was killed by SIGKILL/);
  assert.match(explainStartFailure({ commandLine: "x", error: "boom" }), /did not start \(x\): boom/);
});

test("a real failing process: spawn errors and exit codes are what the explanation reads", async () => {
  const err = await new Promise<NodeJS.ErrnoException>((resolve) => {
    spawn("/nonexistent/python-for-tritonrl-test", []).once("error", resolve);
  });
  assert.equal(err.code, "ENOENT");
  const tail = new Tail(200);
  const code = await new Promise<number | null>((resolve) => {
    const p = spawn(process.execPath, ["-e", "console.error('x'.repeat(500)); console.error('the reason'); process.exit(3)"]);
    p.stderr.on("data", (d: Buffer) => tail.push(d.toString()));
    p.on("close", resolve);
  });
  assert.equal(code, 3);
  assert.ok(tail.toString().length <= 200);
  assert.match(explainStartFailure({ commandLine: "srv", exitCode: code, stderr: tail.toString() }),
    /exited with code 3 while starting \(srv\): the reason\.$/);
});
