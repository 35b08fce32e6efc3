/** Pure: a plain sentence for why the language server did not start. */

export interface StartFailure {
  /** The command line that was run. */
  commandLine: string;
  /** How spawning failed (ENOENT, EACCES…), when it did. */
  spawnError?: { code?: string; message: string };
  /** The exit code or signal, when the process ended. */
  exitCode?: number | null;
  signal?: string | null;
  /** The end of the server's stderr. */
  stderr?: string;
  /** The client's own error, when nothing better is known. */
  error?: string;
}

const HINT = "Set “tritonrl.pythonPath” to a Python where tritonrl is installed (pip install 'tritonrl[lsp]'), " +
  "or “tritonrl.serverPath” to the tritonrl-lsp executable.";

/** The last line of stderr that says something (Python's exception line, usually). */
export function lastMeaningfulLine(stderr: string | undefined): string {
  const lines = (stderr ?? "").split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  return lines.length ? lines[lines.length - 1] : "";
}

export function explainStartFailure(f: StartFailure): string {
  const cmd = f.commandLine;
  const program = cmd.split(" ")[0];
  if (f.spawnError) {
    if (f.spawnError.code === "ENOENT") return `TritonRL could not start its language server: “${program}” was not found. ${HINT}`;
    if (f.spawnError.code === "EACCES") return `TritonRL could not start its language server: “${program}” is not executable. ${HINT}`;
    return `TritonRL could not start its language server (${cmd}): ${f.spawnError.message}. ${HINT}`;
  }
  const last = lastMeaningfulLine(f.stderr);
  if (f.exitCode !== undefined || f.signal) {
    const how = f.signal ? `was killed by ${f.signal}` : `exited with code ${f.exitCode}`;
    const why = last ? `: ${last}` : "";
    const hint = /No module named/.test(last) ? ` ${HINT}` : "";
    return `TritonRL's language server ${how} while starting (${cmd})${why}.${hint}`;
  }
  return `TritonRL's language server did not start (${cmd}): ${f.error ?? "unknown error"}${last ? ` — ${last}` : ""}.`;
}

/** Keeps the last `max` characters of a stream. */
export class Tail {
  private text = "";
  constructor(private readonly max = 4000) {}
  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.max);
  }
  toString(): string {
    return this.text;
  }
}
