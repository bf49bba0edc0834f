/**
 * Workspace trust, checked in the handler of every command that writes files, runs git or starts
 * a process (the `enablement` clause in package.json only greys out buttons; a command can still
 * be executed by another extension, a keybinding or a test).
 */
import * as vscode from 'vscode';

let simulatedRestricted = false;

/** Test seam (RalphApi.simulateRestrictedMode, test build only): behave as in Restricted Mode. */
export function simulateRestrictedMode(on: boolean): void {
  simulatedRestricted = on;
}

export function isTrusted(): boolean {
  return vscode.workspace.isTrusted && !(__RALPH_TEST__ && simulatedRestricted);
}

/** Throws a clear message when the workspace is not trusted; `action` says what was refused. */
export function requireTrust(action: string): void {
  if (!isTrusted()) {
    throw new Error(`${action} needs a trusted workspace: this folder is open in Restricted Mode. Use "Manage Workspace Trust" to trust it.`);
  }
}
