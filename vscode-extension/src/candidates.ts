/** Pure: sort the server's code actions at the cursor into generate / apply / reject, per class. */

/** The parts of LSP types used here (structural, so this module needs neither VS Code nor the client). */
export interface LspCommand {
  title: string;
  command: string;
  arguments?: unknown[];
}
export interface LspTextEdit {
  newText: string;
}
export interface LspDocumentChange {
  kind?: string;
  uri?: string;
  textDocument?: { uri: string };
  edits?: LspTextEdit[];
}
export interface LspCodeAction {
  title: string;
  kind?: string;
  command?: LspCommand;
  edit?: { documentChanges?: LspDocumentChange[] };
}

export const KIND = "refactor.rewrite.tritonrl";
export const CMD_GENERATE = "tritonrl.generate";
export const CMD_APPLY = "tritonrl.apply";
export const CMD_REJECT = "tritonrl.reject";

export interface Suggestion {
  action: LspCodeAction;
  /** The file the kernel is written to (the server's sibling `<stem>_triton.py`). */
  target: string;
  /** The candidate's whole source. */
  code: string;
}

export interface ClassActions {
  className: string;
  uri: string;
  generate?: LspCommand;
  /** Verified candidates, best first (the server's order). */
  suggestions: Suggestion[];
  reject?: LspCommand;
}

function isCodeAction(a: unknown): a is LspCodeAction {
  return typeof a === "object" && a !== null && typeof (a as LspCodeAction).title === "string" &&
    (typeof (a as LspCodeAction).command === "object" || typeof (a as LspCodeAction).edit === "object");
}

/** The kernel file and code of an apply action's edit (a CreateFile then one TextDocumentEdit). */
export function suggestionOf(action: LspCodeAction): Suggestion | undefined {
  const changes = action.edit?.documentChanges ?? [];
  const edit = changes.find((c) => c.textDocument && Array.isArray(c.edits));
  if (!edit || !edit.textDocument) return undefined;
  return { action, target: edit.textDocument.uri, code: (edit.edits ?? []).map((e) => e.newText).join("") };
}

/** Groups the TritonRL actions by class (arguments are [uri, class, …]), in the order the server gave them. */
export function classActions(actions: unknown[] | null | undefined): ClassActions[] {
  const byClass = new Map<string, ClassActions>();
  for (const a of actions ?? []) {
    if (!isCodeAction(a) || !a.command || !a.command.command.startsWith("tritonrl.")) continue;
    const [uri, className] = (a.command.arguments ?? []) as [unknown, unknown];
    if (typeof uri !== "string" || typeof className !== "string") continue;
    let entry = byClass.get(className);
    if (!entry) {
      entry = { className, uri, suggestions: [] };
      byClass.set(className, entry);
    }
    if (a.command.command === CMD_GENERATE) entry.generate = a.command;
    else if (a.command.command === CMD_REJECT) entry.reject = a.command;
    else if (a.command.command === CMD_APPLY) {
      const s = suggestionOf(a);
      if (s) entry.suggestions.push(s);
    }
  }
  return [...byClass.values()];
}

/** The file name at the end of a URI, for titles. */
export function baseName(uri: string): string {
  const path = uri.replace(/[?#].*$/, "");
  return decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
}
