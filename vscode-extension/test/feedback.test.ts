// Runs the real `python -m training.feedback_report` of this repository on a store written by the
// real FeedbackStore (skipped when python3 cannot import the repository's training package).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { runFeedbackReport } from "../src/feedback";

const REPO = resolve(__dirname, "..", "..");
const python = process.env.TRITONRL_PYTHON ?? "python3";
let usable = true;
try {
  execFileSync(python, ["-c", "import training.feedback"], { cwd: REPO, stdio: "ignore" });
} catch {
  usable = false;
}

test("the report of a real store, and plain errors", { skip: !usable && "python3 cannot import training" }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "tritonrl-fb-"));
  const db = join(dir, "fb.sqlite3");
  execFileSync(python, ["-c", "import sys; from training.feedback import FeedbackStore as S; s = S(sys.argv[1]); " +
    "i = s.record_shown(problem='p', verdict={'ok': True}, model_id='m', class_name='MyReLU'); s.decide(i, 'rejected')",
  db], { cwd: REPO });
  const ok = await runFeedbackReport(python, db, REPO);
  assert.ok(ok.ok, JSON.stringify(ok));
  assert.match(ok.text, /1 suggestion\(s\) shown: 0 accepted, 1 rejected, 0 ignored/);
  assert.match(ok.text, /\| MyReLU \| m \| verified \|/);
  const missing = await runFeedbackReport(python, join(dir, "none.sqlite3"), REPO);
  assert.deepEqual(missing.ok, false);
  assert.match(!missing.ok ? missing.error : "", /^TritonRL feedback log: no feedback store at /);
  const nopython = await runFeedbackReport("/nonexistent/python", db, REPO);
  assert.match(!nopython.ok ? nopython.error : "", /was not found \(set tritonrl\.pythonPath\)/);
});
