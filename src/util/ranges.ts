import * as vscode from 'vscode';

/** A line/character range of the core (0-based, as in LSP) as a vscode.Range: the one converter. */
export function toRange(r: { readonly start: { readonly line: number; readonly character: number }; readonly end: { readonly line: number; readonly character: number } }): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}
