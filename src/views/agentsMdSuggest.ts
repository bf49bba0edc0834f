/**
 * The AGENTS.md snippets (snippets/agents-md.code-snippets: `agents`, `agents-gotchas`, …) offered
 * as you type their prefix in an AGENTS.md. Markdown has quick suggestions off by default, so a
 * snippet would otherwise show only on Ctrl+Space; turning them on for all Markdown would be a
 * setting change the user did not ask for. Instead: when a line of an AGENTS.md starts with what a
 * snippet prefix starts with (`ag`, typed by hand), the suggest widget is opened once for that word.
 */
import * as vscode from 'vscode';
import { Disposable } from '../util/disposable';

/** What the line before the cursor is, when a snippet prefix is being typed: `ag`, `agents-pa`, … */
const TYPING_PREFIX = /^[ \t]*(ag(?:e(?:n(?:t(?:s(?:-[a-z]*)?)?)?)?)?)$/;

export function isAgentsMd(doc: vscode.TextDocument): boolean {
  return doc.uri.path.endsWith('/AGENTS.md') && doc.languageId === 'markdown';
}

export class AgentsMdSuggest extends Disposable {
  /** The line where suggest was last opened: one opening per word, not one per key. */
  private openedAt?: { uri: string; line: number };

  constructor() {
    super();
    this.register(vscode.workspace.onDidChangeTextDocument((e) => this.onChange(e)));
  }

  private onChange(e: vscode.TextDocumentChangeEvent): void {
    const editor = vscode.window.activeTextEditor;
    // One character typed by hand in the active AGENTS.md (not a paste, an undo or another editor's change).
    if (!editor || editor.document !== e.document || !isAgentsMd(e.document) || e.contentChanges.length !== 1 || e.reason !== undefined) {
      return;
    }
    const change = e.contentChanges[0];
    if (change.text.length !== 1 || change.rangeLength !== 0) {
      return;
    }
    const line = change.range.start.line;
    const before = e.document.lineAt(line).text.slice(0, change.range.start.character + 1);
    const m = TYPING_PREFIX.exec(before);
    if (!m) {
      if (this.openedAt?.line === line) {
        this.openedAt = undefined;
      }
      return;
    }
    const key = e.document.uri.toString();
    if (m[1].length < 2 || (this.openedAt?.uri === key && this.openedAt.line === line)) {
      return;
    }
    this.openedAt = { uri: key, line };
    void vscode.commands.executeCommand('editor.action.triggerSuggest');
  }
}
