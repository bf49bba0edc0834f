/**
 * Workspace trust, read here and nowhere else (the lint rejects `workspace.isTrusted` in any other
 * module). Commands are guarded from their declared needs by the registrar
 * (src/commands/registrar.ts, src/commands/needs.ts); the runner and the views ask isTrusted().
 * The `enablement` clause in package.json only greys out buttons: a command can still be executed
 * by another extension, a keybinding or a test.
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
