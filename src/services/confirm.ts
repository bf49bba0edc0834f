/**
 * Every question Ralph asks before it acts (post a comment to GitHub, run an agent on a story that
 * is not ready, create an AGENTS.md, run on a working tree with uncommitted changes, apply a
 * previewed compaction or Pin, which agent to use when the configured one is missing) and every
 * error that offers a way out (an agent error's "Open Setting") goes through here: one way to ask,
 * and one seam through which the extension-host tests answer it
 * (RalphApi.answerConfirmations, test build only) instead of clicking a dialog they cannot reach.
 * No command takes an argument that answers its question: it is answered here or by the person.
 */
import * as vscode from 'vscode';

/** A question as the person sees it: the message, its detail, and the buttons besides Cancel. */
export interface Question {
  readonly message: string;
  readonly detail?: string;
  readonly choices: readonly string[];
  /** A pick from a list (`choose`): its items as the list shows them; `choices` are their labels. */
  readonly items?: readonly { readonly label: string; readonly description?: string; readonly detail?: string }[];
}

/** Answers a question with the button pressed, or undefined for Cancel (Escape, closing the dialog). */
export type ConfirmationHandler = (question: Question) => string | undefined;

export interface AskOptions {
  /** Smaller text under the message (what exactly will happen). */
  readonly detail?: string;
  /** An information dialog rather than a warning (nothing is lost or published by answering yes). */
  readonly severity?: 'warning' | 'info';
  /**
   * False: a notification with the choices and a Cancel button instead of a dialog, for a question
   * asked beside something the person should look at first (the diff of a compaction or the Pin).
   */
  readonly modal?: boolean;
  /** The label of the notification's dismissing button (`modal: false`; default Cancel), e.g. "Not Now". */
  readonly dismiss?: string;
}

const CANCEL = 'Cancel';

let testHandler: ConfirmationHandler | undefined;

/** Test seam (RalphApi.answerConfirmations, test build only): answer every question with `handler`; undefined restores the dialog. */
export function answerConfirmations(handler: ConfirmationHandler | undefined): void {
  testHandler = handler;
}

/** Asks `message` in a modal dialog offering `choices` and Cancel; resolves to the button pressed, undefined for Cancel. */
export async function ask(message: string, choices: readonly string[], options: AskOptions = {}): Promise<string | undefined> {
  if (__RALPH_TEST__ && testHandler) {
    const answer = testHandler({ message, detail: options.detail, choices });
    if (answer !== undefined && !choices.includes(answer)) {
      // A test that answers with a button the dialog does not have would otherwise read as Cancel.
      throw new Error(`The test answered "${answer}" to "${message}", which offers ${choices.map((c) => `"${c}"`).join(', ')} and Cancel.`);
    }
    return answer;
  }
  if (options.modal === false) {
    const dismiss = options.dismiss ?? CANCEL;
    const buttons = [...choices, dismiss];
    const pick = options.severity === 'info' ? await vscode.window.showInformationMessage(message, ...buttons) : await vscode.window.showWarningMessage(message, ...buttons);
    return pick === dismiss ? undefined : pick;
  }
  const dialog = { modal: true, detail: options.detail };
  return options.severity === 'info'
    ? vscode.window.showInformationMessage(message, dialog, ...choices)
    : vscode.window.showWarningMessage(message, dialog, ...choices);
}

/** Asks a yes-or-Cancel question whose yes is the button `action` (e.g. "Post Comment"); true when it was pressed. */
export async function confirm(message: string, action: string, options: AskOptions = {}): Promise<boolean> {
  return (await ask(message, [action], options)) === action;
}

/**
 * A pick from a list (a quick pick titled `title`); resolves to the item picked, undefined when the
 * person closed it. Through the test seam, `choices` are the labels and `items` the whole items.
 */
export async function choose<T extends vscode.QuickPickItem>(items: readonly T[], options: { readonly title: string; readonly placeHolder?: string }): Promise<T | undefined> {
  if (__RALPH_TEST__ && testHandler) {
    const answer = testHandler({ message: options.title, detail: options.placeHolder, choices: items.map((i) => i.label), items });
    const picked = items.find((i) => i.label === answer);
    if (answer !== undefined && !picked) {
      throw new Error(`The test picked "${answer}" in "${options.title}", which offers ${items.map((i) => `"${i.label}"`).join(', ')}.`);
    }
    return picked;
  }
  return vscode.window.showQuickPick(items, { title: options.title, placeHolder: options.placeHolder, ignoreFocusOut: true, matchOnDescription: true });
}

/** An error notification with buttons (e.g. "Open Setting"); resolves to the button pressed, undefined when closed. */
export function tellError(message: string, actions: readonly string[]): Promise<string | undefined> {
  return tell(message, actions, 'error');
}

/** A warning notification with buttons and no Cancel (e.g. a wait for an agent's limit: Resume Now, Stop); resolves to the button pressed, undefined when closed. */
export function tellWarning(message: string, actions: readonly string[]): Promise<string | undefined> {
  return tell(message, actions, 'warning');
}

async function tell(message: string, actions: readonly string[], severity: 'error' | 'warning'): Promise<string | undefined> {
  if (__RALPH_TEST__ && testHandler) {
    const answer = testHandler({ message, choices: actions });
    if (answer !== undefined && !actions.includes(answer)) {
      throw new Error(`The test answered "${answer}" to "${message}", which offers ${actions.map((c) => `"${c}"`).join(', ')}.`);
    }
    return answer;
  }
  return severity === 'error' ? vscode.window.showErrorMessage(message, ...actions) : vscode.window.showWarningMessage(message, ...actions);
}
