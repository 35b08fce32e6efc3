import assert from "node:assert/strict";
import { test } from "node:test";
import { JobTracker, statusText } from "../src/jobs";

test("jobs follow begin / report / end; the last outcome is kept", () => {
  let t = 0;
  const jobs = new JobTracker(() => ++t);
  jobs.update("a", { kind: "begin", title: "TritonRL: MyReLU", message: "starting" });
  jobs.update("b", { kind: "begin", title: "TritonRL: Scale" });
  jobs.update("a", { kind: "report", message: "verifying 4 candidates" });
  jobs.update("zzz", { kind: "report", message: "unknown token" }); // ignored
  assert.deepEqual(jobs.jobs().map((j) => [j.title, j.message]),
    [["TritonRL: MyReLU", "verifying 4 candidates"], ["TritonRL: Scale", ""]]);
  const run = statusText({ state: "running", model: "served", device: "cpu", jobs: jobs.jobs() });
  assert.equal(run.text, "$(sync~spin) TritonRL: MyReLU — verifying 4 candidates (+1) · served · cpu");
  assert.match(run.tooltip, /Running: TritonRL: Scale/);
  jobs.update("a", { kind: "end", message: "done" });
  jobs.update("b", { kind: "end" });
  assert.deepEqual(jobs.jobs(), []);
  assert.deepEqual(jobs.last, { title: "TritonRL: Scale", outcome: "done" });
  const idle = statusText({ state: "running", model: "served", device: "cpu", jobs: [], last: jobs.last });
  assert.equal(idle.text, "$(check) TritonRL: served · cpu · Scale done");
  assert.equal(idle.error, false);
});

test("server states show in the status bar", () => {
  const base = { model: "m", device: "auto", jobs: [] };
  assert.equal(statusText({ ...base, state: "running" }).text, "$(check) TritonRL: m · auto · idle");
  assert.match(statusText({ ...base, state: "starting" }).text, /starting/);
  const failed = statusText({ ...base, state: "failed" });
  assert.equal(failed.text, "$(error) TritonRL: server failed");
  assert.ok(failed.error);
  assert.match(failed.tooltip, /server log/);
});
