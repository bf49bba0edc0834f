/**
 * The one way the extension changes a user's text file. When the file is open in an editor, the
 * change is a WorkspaceEdit (undo restores it) and the document is saved if it had no unsaved
 * changes; when it is not open and the change is a pure append, it is appended with O_APPEND so
 * an agent writing at the same time loses nothing; otherwise it goes through a WorkspaceEdit on
 * the document and a save, which refuses to overwrite a file that changed on disk meanwhile.
 */
import * as vscode from 'vscode';
import type { TextEdit } from '../core/prd/edits';
import { openDocument } from '../util/documents';
import { editsToWorkspaceEdit } from '../util/edits';
import { appendText, readText } from './workspaceFiles';

export interface FileEditOptions {
  /** The same change as text to append at the end, when it is exactly an append (else undefined). */
  readonly appendForm?: (text: string) => string | undefined;
  /** Reads the file when it is not open (defaults to the document). */
  readonly readText?: () => Promise<string | undefined>;
}

export type FileEditResult = 'edited' | 'appended' | 'unchanged';

export async function editTextFile(uri: vscode.Uri, compute: (text: string) => TextEdit[], options: FileEditOptions = {}): Promise<FileEditResult> {
  const open = openDocument(uri);
  if (!open && options.appendForm && options.readText) {
    const text = (await options.readText()) ?? '';
    const append = options.appendForm(text);
    if (append !== undefined) {
      if (append === '') {
        return 'unchanged';
      }
      await appendText(uri, append);
      return 'appended';
    }
  }
  if (open) {
    await untilCurrent(open);
  }
  const doc = open ?? (await vscode.workspace.openTextDocument(uri));
  const wasDirty = doc.isDirty;
  // An agent may rewrite the file while we compute: the edit is then refused for a stale version.
  // Recompute from the reloaded text and try again before giving up.
  for (let attempt = 0; ; attempt++) {
    const text = doc.getText();
    const edits = compute(text);
    if (edits.length === 0) {
      return 'unchanged';
    }
    if (await vscode.workspace.applyEdit(editsToWorkspaceEdit(doc.uri, text, edits))) {
      break;
    }
    if (attempt >= 2) {
      throw new Error(`VS Code refused the edit to ${vscode.workspace.asRelativePath(uri)} (is the file read-only, or changing on disk right now?).`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  if (!wasDirty && !(await doc.save())) {
    // Show the unsaved change rather than leave it in a document no editor shows.
    await vscode.window.showTextDocument(doc, { preview: false });
    throw new Error(`${vscode.workspace.asRelativePath(uri)} could not be saved (did it change on disk meanwhile?). The change is in the editor, unsaved: compare and save, or revert.`);
  }
  return 'edited';
}

/**
 * A loaded document without unsaved changes whose file changed on disk (an agent appended to it)
 * is reloaded by VS Code a moment later. Until then its text is stale, and an edit computed on it
 * could not be saved ("changed on disk meanwhile"), so wait for the reload (up to `timeoutMs`).
 */
async function untilCurrent(doc: vscode.TextDocument, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (doc.isDirty || doc.isClosed) {
      return;
    }
    const disk = await readText(doc.uri).catch(() => undefined);
    if (disk === undefined || disk.replace(/^\uFEFF/, '') === doc.getText() || Date.now() > deadline) {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
