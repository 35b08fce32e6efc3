/** TritonRL for VS Code: starts `tritonrl-lsp` for Python files and adds the diff / accept / reject workflow. */
import { spawn, ChildProcess } from "node:child_process";
import * as vscode from "vscode";
import {
  CloseAction,
  CodeActionRequest,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  State,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  WorkspaceEdit as LspWorkspaceEdit,
} from "vscode-languageclient/node";
import { baseName, ClassActions, classActions, KIND, Suggestion } from "./candidates";
import { configuredModel, ExtensionSettings, RESTART_KEYS, serverLaunch, serverOptions } from "./config";
import { JobTracker, ProgressValue, ServerState, statusText } from "./jobs";
import { explainStartFailure, StartFailure, Tail } from "./startup";
import { CandidateDocuments, SCHEME } from "./candidateDocs";
import { runFeedbackReport } from "./feedback";

const SECTION = "tritonrl";
const SHOW_LOG = "Open server log";
const OPEN_SETTINGS = "Open settings";

/** A LanguageClient whose errors only go to the server log: the user gets our plain messages instead
 * (start-up failures, crashes), not "couldn't create connection to server". */
class TritonClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

interface Launched {
  process?: ChildProcess;
  failure: StartFailure;
  stderr: Tail;
}

export class TritonExtension implements vscode.Disposable {
  private client: TritonClient | undefined;
  private readonly log: vscode.OutputChannel;
  private readonly status: vscode.StatusBarItem;
  private readonly jobs = new JobTracker();
  private readonly docs = new CandidateDocuments();
  private state: ServerState = "stopped";
  private model = "";
  private launched: Launched | undefined;
  private readonly progress = new Map<string, { report: (m: string) => void; done: () => void }>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.log = vscode.window.createOutputChannel("TritonRL Language Server");
    this.status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
    this.status.command = "tritonrl.showServerLog";
    this.status.show();
    const reg = (id: string, fn: () => unknown): void => {
      this.disposables.push(vscode.commands.registerCommand(id, async () => {
        try {
          await fn();
        } catch (e) {
          this.log.appendLine(`[extension] ${id} failed: ${e instanceof Error ? e.stack : String(e)}`);
          void this.showError(`TritonRL: ${id} failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }));
    };
    reg("tritonrl.generateHere", () => this.generateHere());
    reg("tritonrl.previewBest", () => this.previewBest());
    reg("tritonrl.acceptBest", () => this.acceptBest());
    reg("tritonrl.rejectHere", () => this.rejectHere());
    reg("tritonrl.openFeedbackLog", () => this.openFeedbackLog());
    reg("tritonrl.restartServer", () => this.restart());
    reg("tritonrl.showServerLog", () => this.log.show(true));
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, this.docs),
      vscode.workspace.onDidChangeConfiguration((e) => this.configChanged(e)),
      this.log, this.status, this.docs,
    );
  }

  // -- settings ----------------------------------------------------------------------------------
  private settings(): ExtensionSettings {
    const scope = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    const c = vscode.workspace.getConfiguration(SECTION, scope);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(c)) {
      if (typeof (c as unknown as Record<string, unknown>)[k] !== "function") out[k] = c.get(k);
    }
    return out as ExtensionSettings;
  }

  private async configChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
    if (!e.affectsConfiguration(SECTION)) return;
    this.model = this.model || configuredModel(this.settings());
    this.render();
    if (RESTART_KEYS.some((k) => e.affectsConfiguration(`${SECTION}.${k}`))) {
      const pick = await vscode.window.showInformationMessage(
        "TritonRL: the server command changed. Restart the language server to use it?", "Restart");
      if (pick === "Restart") await this.restart();
    }
  }

  // -- the server --------------------------------------------------------------------------------
  async start(): Promise<void> {
    const settings = this.settings();
    const launch = serverLaunch(settings);
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    this.model = configuredModel(settings);
    this.state = "starting";
    this.render();
    this.log.appendLine(`[extension] starting: ${launch.display}${cwd ? ` (in ${cwd})` : ""}`);
    const launched: Launched = { failure: { commandLine: launch.display }, stderr: new Tail() };
    this.launched = launched;

    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ language: "python" }],
      initializationOptions: serverOptions(settings),
      synchronize: { configurationSection: SECTION },
      outputChannel: this.log,
      initializationFailedHandler: () => false,
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue, handled: true }),
        closed: () => {
          this.jobs.clear();
          for (const p of this.progress.values()) p.done();
          this.progress.clear();
          if (this.state === "running") {
            this.state = "failed";
            this.render();
            const f = launched.failure;
            const how = f.signal ? `was killed by ${f.signal}` : `exited${f.exitCode !== undefined ? ` with code ${f.exitCode}` : ""}`;
            void this.showError(`TritonRL's language server ${how}. Use “TritonRL: Restart the language server” ` +
              "to start it again.");
          }
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
    const client = new TritonClient("tritonrl", "TritonRL", () => this.spawnServer(launch, cwd, launched), clientOptions);
    this.client = client;
    client.onNotification("tritonrl/modelChanged", (p: { model_id?: string }) => {
      if (p && typeof p.model_id === "string" && p.model_id) {
        this.model = p.model_id;
        this.log.appendLine(`[extension] model: ${p.model_id}`);
        this.render();
      }
    });
    let error: unknown;
    try {
      await client.start();
    } catch (e) {
      error = e;
    }
    if (this.client !== client) return;
    // start() can resolve although the server went away while starting (the connection closed first).
    if (error === undefined && client.state === State.Running) {
      // Our own progress UI, in place of the client's built-in one (registered while starting): the status
      // bar follows the jobs, and Cancel is offered when the server allows it.
      client.onRequest(WorkDoneProgressCreateRequest.type, (params) => this.trackProgress(client, String(params.token)));
      this.state = "running";
      this.render();
      return;
    }
    await new Promise((r) => setTimeout(r, 300)); // let the exit event land
    launched.failure.stderr = launched.stderr.toString();
    launched.failure.error = error instanceof Error ? error.message : error !== undefined ? String(error) : undefined;
    this.state = "failed";
    this.render();
    const message = explainStartFailure(launched.failure);
    this.log.appendLine(`[extension] ${message}`);
    void this.showError(message, OPEN_SETTINGS);
  }

  private async spawnServer(launch: ReturnType<typeof serverLaunch>, cwd: string | undefined,
    launched: Launched): Promise<ChildProcess> {
    const child = spawn(launch.command, launch.args, { cwd, env: process.env, stdio: "pipe" });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (err: NodeJS.ErrnoException) => {
        launched.failure.spawnError = { code: err.code, message: err.message };
        reject(err);
      });
    });
    launched.process = child;
    child.stderr?.on("data", (d: Buffer) => launched.stderr.push(d.toString()));
    child.on("exit", (code, signal) => {
      launched.failure.exitCode = code;
      launched.failure.signal = signal;
      this.log.appendLine(`[extension] server process ended (${signal ?? `code ${code}`})`);
    });
    return child;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.state = "stopped";
    if (client) {
      try {
        if (client.state !== State.Stopped) await client.stop(5000);
      } catch (e) {
        this.log.appendLine(`[extension] stop: ${String(e)}`);
      }
      await client.dispose().catch(() => undefined);
    }
    this.launched?.process?.kill();
    this.jobs.clear();
    this.state = "stopped";
    this.render();
  }

  async restart(): Promise<void> {
    this.log.appendLine("[extension] restarting the language server");
    await this.stop();
    await this.start();
  }

  private running(): TritonClient {
    if (!this.client || this.state !== "running") {
      throw new Error(`the language server is ${this.state}; see “TritonRL: Show the language server log”`);
    }
    return this.client;
  }

  // -- progress and the status bar ----------------------------------------------------------------
  private trackProgress(client: TritonClient, token: string): void {
    const sub = client.onProgress(WorkDoneProgress.type, token, (value) => {
      const v = value as ProgressValue;
      this.jobs.update(token, v);
      this.render();
      if (v.kind === "begin") {
        void vscode.window.withProgress({
          location: vscode.ProgressLocation.Notification, title: v.title, cancellable: v.cancellable === true,
        }, (p, cancel) => new Promise<void>((resolve) => {
          if (v.message) p.report({ message: v.message });
          cancel.onCancellationRequested(() => {
            void client.sendNotification(WorkDoneProgressCancelNotification.type, { token });
          });
          this.progress.set(token, { report: (m) => p.report({ message: m }), done: resolve });
        }));
      } else if (v.kind === "report") {
        if (v.message) this.progress.get(token)?.report(v.message);
      } else {
        this.progress.get(token)?.done();
        this.progress.delete(token);
        sub.dispose();
      }
    });
  }

  private render(): void {
    const t = statusText({
      state: this.state, model: this.model || configuredModel(this.settings()),
      device: this.settings().device ?? "auto", jobs: this.jobs.jobs(), last: this.jobs.last,
    });
    this.status.text = t.text;
    this.status.tooltip = t.tooltip;
    this.status.backgroundColor = t.error ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  }

  private async showError(message: string, ...extra: string[]): Promise<void> {
    const pick = await vscode.window.showErrorMessage(message, SHOW_LOG, ...extra);
    if (pick === SHOW_LOG) this.log.show(true);
    if (pick === OPEN_SETTINGS) await vscode.commands.executeCommand("workbench.action.openSettings", SECTION);
  }

  // -- the workflow --------------------------------------------------------------------------------
  /** The server's TritonRL actions for the class under the cursor of the active Python editor. */
  private async here(): Promise<{ editor: vscode.TextEditor; actions: ClassActions } | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== "python") {
      void vscode.window.showWarningMessage("TritonRL: open a Python file and put the cursor inside an nn.Module class.");
      return undefined;
    }
    const client = this.running();
    const c2p = client.code2ProtocolConverter;
    const sel = editor.selection;
    const result = await client.sendRequest(CodeActionRequest.type, {
      textDocument: c2p.asTextDocumentIdentifier(editor.document),
      range: c2p.asRange(new vscode.Range(sel.start, sel.end)),
      context: { diagnostics: [], only: [KIND] },
    });
    const groups = classActions(result as unknown[]);
    if (!groups.length) {
      void vscode.window.showWarningMessage("TritonRL: the cursor is not inside an nn.Module class.");
      return undefined;
    }
    return { editor, actions: groups[0] };
  }

  private async execute(command: { command: string; arguments?: unknown[] }): Promise<unknown> {
    return this.running().sendRequest(ExecuteCommandRequest.type,
      { command: command.command, arguments: command.arguments as never[] });
  }

  async generateHere(): Promise<void> {
    const h = await this.here();
    if (!h?.actions.generate) return;
    await this.execute(h.actions.generate);
  }

  private async best(): Promise<{ actions: ClassActions; best: Suggestion } | undefined> {
    const h = await this.here();
    if (!h) return undefined;
    const best = h.actions.suggestions[0];
    if (!best) {
      void vscode.window.showInformationMessage(`TritonRL: no verified kernel for ${h.actions.className} yet — ` +
        "run “TritonRL: Generate Triton kernel for the module under the cursor” first.");
      return undefined;
    }
    return { actions: h.actions, best };
  }

  async previewBest(): Promise<void> {
    const b = await this.best();
    if (!b) return;
    const { actions, best } = b;
    const right = this.docs.put(best.target, best.code);
    const left = vscode.Uri.parse(actions.uri);
    const title = `${baseName(actions.uri)} ↔ ${baseName(best.target)} (verified kernel for ${actions.className})`;
    await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: true });
    const pick = await vscode.window.showInformationMessage(
      `TritonRL: ${best.action.title}. Write it to ${baseName(best.target)}?`, "Accept", "Reject");
    if (pick === "Accept") await this.apply(actions, best);
    else if (pick === "Reject" && actions.reject) await this.execute(actions.reject);
  }

  async acceptBest(): Promise<void> {
    const b = await this.best();
    if (b) await this.apply(b.actions, b.best);
  }

  private async apply(actions: ClassActions, s: Suggestion): Promise<void> {
    const client = this.running();
    const edit = await client.protocol2CodeConverter.asWorkspaceEdit(s.action.edit as LspWorkspaceEdit);
    if (!(await vscode.workspace.applyEdit(edit))) {
      void this.showError(`TritonRL: VS Code did not apply the edit to ${baseName(s.target)}.`);
      return;
    }
    if (s.action.command) await this.execute(s.action.command); // records the acceptance; warns when stale
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(s.target));
    await doc.save();
    await vscode.window.showTextDocument(doc, { preview: false });
    this.log.appendLine(`[extension] ${actions.className}: kernel written to ${s.target}`);
  }

  async rejectHere(): Promise<void> {
    const h = await this.here();
    if (!h) return;
    if (!h.actions.reject) {
      void vscode.window.showInformationMessage(`TritonRL: no suggestions for ${h.actions.className} to reject.`);
      return;
    }
    await this.execute(h.actions.reject);
  }

  async openFeedbackLog(): Promise<void> {
    const s = this.settings();
    const python = (s.pythonPath ?? "").trim() || "python3";
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const r = await runFeedbackReport(python, s.feedbackDb ?? undefined, cwd);
    if (!r.ok) {
      void this.showError(`TritonRL: cannot read the feedback log: ${r.error}`);
      return;
    }
    // a read-only document (nothing to save), shown rendered when the Markdown preview is there
    const uri = this.docs.put("file:///TritonRL%20feedback%20log.md", r.text);
    try {
      await vscode.commands.executeCommand("markdown.showPreview", uri);
    } catch {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: false });
    }
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) d.dispose();
  }
}

let ext: TritonExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  ext = new TritonExtension();
  context.subscriptions.push(ext);
  await ext.start();
}

export async function deactivate(): Promise<void> {
  await ext?.stop();
  ext = undefined;
}
