/** Runs `python -m training.feedback_report` (the one reader of the feedback store) and returns its Markdown. */
import { execFile } from "node:child_process";

export type ReportResult = { ok: true; text: string } | { ok: false; error: string };

export function runFeedbackReport(python: string, db: string | undefined, cwd?: string,
  timeoutMs = 30000): Promise<ReportResult> {
  const args = ["-m", "training.feedback_report", ...(db && db.trim() ? ["--db", db.trim()] : [])];
  return new Promise((resolve) => {
    execFile(python, args, { cwd, timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (!err) {
        resolve({ ok: true, text: stdout });
        return;
      }
      const e = err as NodeJS.ErrnoException & { killed?: boolean };
      const last = stderr.trim().split(/\r?\n/).pop() ?? "";
      if (e.code === "ENOENT") resolve({ ok: false, error: `“${python}” was not found (set tritonrl.pythonPath)` });
      else if (e.killed) resolve({ ok: false, error: `${python} -m training.feedback_report took over ${timeoutMs / 1000} s` });
      else resolve({ ok: false, error: last || e.message });
    });
  });
}
