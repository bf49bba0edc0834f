import * as vscode from 'vscode';

/** Registers a command whose errors are logged with the component and shown once, briefly. */
export function registerSafeCommand(
  log: vscode.LogOutputChannel,
  id: string,
  handler: (...args: never[]) => unknown,
): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await (handler as (...a: unknown[]) => unknown)(...args);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      log.error(`[${id}] ${message}`);
      void vscode.window.showErrorMessage(`Ralph: ${message}`, 'Show Log').then((pick) => {
        if (pick) {
          log.show(true);
        }
      });
      return undefined;
    }
  });
}
