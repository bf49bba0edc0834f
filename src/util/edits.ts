import * as vscode from 'vscode';
import type { TextEdit } from '../core/prd/edits';
import { LineIndex } from '../core/text';

/** Core text edits (offsets into `text`) as a WorkspaceEdit on `uri`. */
export function editsToWorkspaceEdit(uri: vscode.Uri, text: string, edits: readonly TextEdit[]): vscode.WorkspaceEdit {
  const lines = new LineIndex(text);
  const we = new vscode.WorkspaceEdit();
  for (const e of edits) {
    const s = lines.positionAt(e.offset);
    const end = lines.positionAt(e.offset + e.length);
    we.replace(uri, new vscode.Range(s.line, s.character, end.line, end.character), e.content);
  }
  return we;
}
