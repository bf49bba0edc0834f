/**
 * How every command is registered: errors are logged with the command id (and the stack) and
 * shown once, briefly, with "Show Log"; and, in the test build only, recorded, so the
 * extension-host tests can fail on a command error that a user would have seen
 * (RalphApi.commandErrors()).
 */
import * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';

export interface CommandError {
  readonly command: string;
  readonly message: string;
}

const recorded: CommandError[] = [];

/** The command errors since the last clearCommandErrors() (newest last). */
export function commandErrors(): readonly CommandError[] {
  return [...recorded];
}

export function clearCommandErrors(): void {
  recorded.length = 0;
}

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
      const message = errorMessage(e);
      if (__RALPH_TEST__) {
        recorded.push({ command: id, message });
        if (recorded.length > 100) {
          recorded.shift(); // a long test session keeps the newest
        }
      }
      const stack = e instanceof Error && e.stack && !e.stack.includes(message) ? `\n${e.stack}` : '';
      log.error(`[${id}] ${message}${stack}`);
      void vscode.window.showErrorMessage(`Ralph: ${message}`, 'Show Log').then((pick) => {
        if (pick) {
          log.show(true);
        }
      });
      return undefined;
    }
  });
}

/** The one registration helper of the command modules: `const reg = commandRegistrar(context, log)`. */
export function commandRegistrar(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): (id: string, handler: (...args: never[]) => unknown) => void {
  return (id, handler) => {
    context.subscriptions.push(registerSafeCommand(log, id, handler));
  };
}
