import * as vscode from 'vscode';

/** The loaded document of `uri`, if an editor (or an extension) has it open. */
export function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

/** True when `uri` is open with unsaved changes: the one "unsaved changes" check. */
export function hasUnsavedChanges(uri: vscode.Uri): boolean {
  return openDocument(uri)?.isDirty === true;
}
