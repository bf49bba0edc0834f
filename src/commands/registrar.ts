/**
 * The one place a command of the extension is registered (the lint allows `registerCommand`
 * nowhere else). For every command, before and around its handler:
 * - Restricted Mode: a command whose declared needs (needs.ts) include writing, running or posting
 *   is refused with its message and its handler never runs; trust is asked of services/trust.ts.
 * - Errors: what a handler throws is logged with the command id (and the stack) and shown once,
 *   briefly, with "Show Log"; in the test build only, also recorded, so the extension-host tests
 *   can fail on a command error a user would have seen (RalphApi.commandErrors()).
 */
import * as vscode from 'vscode';
import { errorMessage } from '../core/errorMessage';
import { isTrusted } from '../services/trust';
import { COMMAND_NEEDS, type CommandId, refusal } from './needs';

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

/** A command handler: views pass their own arguments, so each reads them defensively. */
export type CommandHandler = (...args: never[]) => unknown;

function registerGuardedCommand(log: vscode.LogOutputChannel, id: CommandId, handler: CommandHandler): vscode.Disposable {
  const needs = COMMAND_NEEDS[id];
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      const refused = isTrusted() ? undefined : refusal(needs);
      if (refused?.severity === 'warning') {
        log.info(`[${id}] refused in Restricted Mode`);
        void vscode.window.showWarningMessage(refused.message);
        return undefined;
      }
      if (refused) {
        throw new Error(refused.message);
      }
      return await (handler as (...a: unknown[]) => unknown)(...args);
    } catch (e) {
      reportError(log, id, e);
      return undefined;
    }
  });
}

function reportError(log: vscode.LogOutputChannel, id: string, e: unknown): void {
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
}

/** The one registration helper of the command modules: `const reg = commandRegistrar(context, log)`, then `reg(Commands.x, handler)`. */
export function commandRegistrar(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): (id: CommandId, handler: CommandHandler) => void {
  return (id, handler) => {
    context.subscriptions.push(registerGuardedCommand(log, id, handler));
  };
}
