/**
 * What the runner says to the user: the dirty-working-tree question before a run, and the
 * notifications of an iteration. Kept apart from the loop so that the runner's logic reads without
 * UI calls in between; the question is asked through the one confirmation seam (confirm.ts), which
 * the tests answer (RalphApi.answerConfirmations).
 */
import * as vscode from 'vscode';
import { ask, tellError } from './confirm';
import { fewPaths } from '../core/runs/runs';

export type DirtyTreeChoice = 'commit' | 'stash' | 'run' | 'cancel';

/** Answers the dirty-tree question (askDirtyTree; the run engine takes it as a port). */
export type DirtyTreeAnswer = (folder: vscode.WorkspaceFolder, files: readonly string[]) => DirtyTreeChoice | Promise<DirtyTreeChoice>;

const COMMIT = 'Commit First…';
const STASH = 'Stash and Run';
const RUN = 'Run Anyway';


/** The modal question before a run on a working tree with uncommitted changes. */
export const askDirtyTree: DirtyTreeAnswer = async (folder, files) => {
  const pick = await ask(
    `${folder.name} has uncommitted changes (${fewPaths(files)}). The agent commits with "git add -A", so running now would put them into its commit.`,
    [COMMIT, STASH, RUN],
    { detail: 'Commit First… opens Source Control and runs nothing. Stash and Run stashes them (git stash -u; .ralph/ stays) and runs. Run Anyway lets the agent commit them.' },
  );
  return pick === COMMIT ? 'commit' : pick === STASH ? 'stash' : pick === RUN ? 'run' : 'cancel';
};

export function showFalseCompletion(note: string | undefined): void {
  void vscode.window.showWarningMessage(`Ralph: ${note ?? 'False completion.'}`);
}

export function showArchived(branch: string | undefined, last: string, target: string): void {
  void vscode.window.showInformationMessage(`Ralph: new feature "${branch}". The previous run (${last}) was archived to ${target}/.`);
}

export function showStashed(message: string): void {
  void vscode.window.showInformationMessage(`Ralph: your uncommitted changes were stashed ("${message}"). Restore them with "git stash pop" after the run.`);
}

export function openSourceControl(): void {
  void vscode.commands.executeCommand('workbench.view.scm');
  void vscode.window.showInformationMessage('Ralph: commit your changes in Source Control, then run again.');
}

export const OPEN_SETTING = 'Open Setting';
export const INSTALL_GUIDE = 'Installation Guide';

/**
 * An error of a run. With a setting (every agent error: a missing program, an unusable command,
 * an agent that keeps failing), it offers "Open Setting", which opens the Settings UI at that key;
 * with a link, the agent's installation guide.
 */
export async function showRunError(message: string, help: { readonly setting?: string; readonly link?: string } = {}): Promise<void> {
  if (!help.setting && !help.link) {
    void vscode.window.showErrorMessage(message);
    return;
  }
  const pick = await tellError(message, [...(help.setting ? [OPEN_SETTING] : []), ...(help.link ? [INSTALL_GUIDE] : [])]);
  if (pick === OPEN_SETTING && help.setting) {
    await vscode.commands.executeCommand('workbench.action.openSettings', help.setting);
  } else if (pick === INSTALL_GUIDE && help.link) {
    await vscode.env.openExternal(vscode.Uri.parse(help.link));
  }
}
