/** Pure: the server's jobs as seen through work-done progress, and the status bar text built from them. */

export type ProgressValue =
  | { kind: "begin"; title: string; message?: string; cancellable?: boolean; percentage?: number }
  | { kind: "report"; message?: string; cancellable?: boolean; percentage?: number }
  | { kind: "end"; message?: string };

export interface Job {
  token: string;
  title: string;
  message: string;
  started: number;
}

export interface Finished {
  title: string;
  outcome: string;
}

/** Running jobs by progress token, and the outcome of the last one that ended. */
export class JobTracker {
  private readonly running = new Map<string, Job>();
  last: Finished | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Applies one progress value; returns the job as it is afterwards (undefined once ended). */
  update(token: string, value: ProgressValue): Job | undefined {
    if (value.kind === "begin") {
      const job = { token, title: value.title, message: value.message ?? "", started: this.now() };
      this.running.set(token, job);
      return job;
    }
    const job = this.running.get(token);
    if (value.kind === "report") {
      if (job && value.message !== undefined) job.message = value.message;
      return job;
    }
    if (job) {
      this.running.delete(token);
      this.last = { title: job.title, outcome: value.message ?? "done" };
    }
    return undefined;
  }

  /** Forgets every running job (the server went away). */
  clear(): void {
    this.running.clear();
  }

  jobs(): Job[] {
    return [...this.running.values()].sort((a, b) => a.started - b.started);
  }
}

export type ServerState = "starting" | "running" | "stopped" | "failed";

export interface StatusInput {
  state: ServerState;
  model: string;
  device: string;
  jobs: Job[];
  last?: Finished;
}

export interface StatusText {
  text: string;
  tooltip: string;
  /** True when the item should look like an error. */
  error: boolean;
}

/** "TritonRL: served · cpu · <job state>", with a spinner while a job runs. */
export function statusText(s: StatusInput): StatusText {
  const head = `${s.model} · ${s.device}`;
  const lines = [`TritonRL language server: ${s.state}`, `Model: ${s.model}`, `Device: ${s.device}`];
  if (s.state === "failed" || s.state === "stopped") {
    lines.push("Click to show the server log.");
    return { text: `$(error) TritonRL: server ${s.state}`, tooltip: lines.join("\n"), error: s.state === "failed" };
  }
  if (s.state === "starting") {
    return { text: `$(loading~spin) TritonRL: starting · ${head}`, tooltip: lines.join("\n"), error: false };
  }
  if (s.jobs.length) {
    const j = s.jobs[0];
    const name = j.title.replace(/^TritonRL:\s*/, "");
    const more = s.jobs.length > 1 ? ` (+${s.jobs.length - 1})` : "";
    for (const job of s.jobs) lines.push(`Running: ${job.title}${job.message ? ` — ${job.message}` : ""}`);
    return {
      text: `$(sync~spin) TritonRL: ${name}${j.message ? ` — ${j.message}` : ""}${more} · ${head}`,
      tooltip: lines.join("\n"),
      error: false,
    };
  }
  if (s.last) lines.push(`Last job: ${s.last.title} — ${s.last.outcome}`);
  const idle = s.last ? `${s.last.title.replace(/^TritonRL:\s*/, "")} ${s.last.outcome}` : "idle";
  return { text: `$(check) TritonRL: ${head} · ${idle}`, tooltip: lines.join("\n"), error: false };
}
