/**
 * Read-only documents: a proposed new version of a file (compaction, the Pin), shown in a diff
 * editor against the current file before anything is written, and the Preview Prompt document.
 */
import * as vscode from 'vscode';
import { confirm } from '../services/confirm';

export const PROPOSED_SCHEME = 'ralph-proposed';

export class ProposedContentProvider implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly onDidChangeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.onDidChangeEmitter.event;
  private counter = 0;
  // A closed preview (Preview Prompt, a diff) no longer needs its text.
  private readonly onClose = vscode.workspace.onDidCloseTextDocument((d) => {
    if (d.uri.scheme === PROPOSED_SCHEME) {
      this.contents.delete(d.uri.toString());
    }
  });

  /** A URI whose document shows `text`; the path ends with the file's name so the language matches. */
  propose(file: vscode.Uri, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: file.path, query: `v=${++this.counter}` });
    this.contents.set(uri.toString(), text);
    return uri;
  }

  forget(uri: vscode.Uri): void {
    this.contents.delete(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  dispose(): void {
    this.onClose.dispose();
    this.onDidChangeEmitter.dispose();
    this.contents.clear();
  }
}

/**
 * Shows current ↔ proposed in a diff editor and asks Apply (or `action`) / Cancel (a notification
 * beside the diff, through the confirmation seam). Resolves true on Apply; the diff editor is
 * closed either way.
 */
export async function previewChange(
  provider: ProposedContentProvider,
  current: vscode.Uri,
  proposedText: string,
  title: string,
  question: string,
  action = 'Apply',
): Promise<boolean> {
  const proposed = provider.propose(current, proposedText);
  try {
    await vscode.commands.executeCommand('vscode.diff', current, proposed, title, { preview: true });
    return await confirm(question, action, { modal: false, severity: 'info' });
  } finally {
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === proposed.toString()) {
          await vscode.window.tabGroups.close(tab);
        }
      }
    }
    provider.forget(proposed);
  }
}
