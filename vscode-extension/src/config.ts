/** Pure helpers: what to start, and which settings to hand the server (no VS Code API here). */

/** The extension's settings as VS Code reads them (section `tritonrl`). */
export interface ExtensionSettings {
  pythonPath?: string;
  serverPath?: string;
  model?: string | null;
  endpoint?: string | null;
  servedModel?: string | null;
  backend?: string;
  device?: string;
  n?: number;
  turns?: number;
  trials?: number | null;
  verifyTimeoutS?: number | null;
  modelTimeoutS?: number;
  maxNewTokens?: number;
  feedbackDb?: string | null;
  lazyBaseline?: boolean | null;
  warmStart?: boolean;
}

/** The keys the server reads (lsp_server Settings, camelCase); the launcher keys stay in the client. */
export const SERVER_KEYS = [
  "model", "endpoint", "servedModel", "backend", "device", "n", "turns", "trials",
  "verifyTimeoutS", "modelTimeoutS", "maxNewTokens", "feedbackDb", "lazyBaseline",
  "warmStart",
] as const;

export interface Launch {
  command: string;
  args: string[];
  /** The command line as a person would type it, for messages. */
  display: string;
}

function quote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `serverPath --stdio` when a server path is set, else `pythonPath -m lsp_server --stdio`. */
export function serverLaunch(s: ExtensionSettings): Launch {
  const server = (s.serverPath ?? "").trim();
  const command = server || (s.pythonPath ?? "").trim() || "python3";
  const args = server ? ["--stdio"] : ["-m", "lsp_server", "--stdio"];
  return { command, args, display: [command, ...args].map(quote).join(" ") };
}

/** initializationOptions for the server: only the keys it reads, without unset (null or empty) values. */
export function serverOptions(s: ExtensionSettings): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const k of SERVER_KEYS) {
    const v = s[k];
    if (v === null || v === undefined) continue;
    if (typeof v === "string") {
      if (v.trim() === "") continue;
      out[k] = v.trim();
    } else if ((typeof v === "number" && Number.isFinite(v)) || typeof v === "boolean") {
      out[k] = v;
    }
  }
  return out;
}

/** Settings whose change needs a new server process (the rest the server takes while running). */
export const RESTART_KEYS = ["pythonPath", "serverPath"] as const;

/** The model as the status bar names it before the server says which one it loaded. */
export function configuredModel(s: ExtensionSettings): string {
  const endpoint = (s.endpoint ?? "").trim();
  if (endpoint) {
    const served = (s.servedModel ?? "").trim();
    return served ? `${served} @ ${endpoint}` : endpoint;
  }
  const model = (s.model ?? "").trim();
  if (model) return model.replace(/\/+$/, "").split("/").pop() || model;
  return "no model";
}
