/** Read-only documents: candidate kernels (the right-hand side of the diff preview) and the feedback log. */
import * as vscode from "vscode";

export const SCHEME = "tritonrl-candidate";

export class CandidateDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private serial = 0;

  /** Stores `code` under a URI named after the file `target`; returns that URI. */
  put(target: string, code: string): vscode.Uri {
    const path = vscode.Uri.parse(target).path;
    const uri = vscode.Uri.from({ scheme: SCHEME, path, query: String(++this.serial) });
    this.texts.set(uri.toString(), code);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}
