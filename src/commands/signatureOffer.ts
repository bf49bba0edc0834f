/**
 * Issue 21: when a story fails twice in a row with the same failure signature, the loop is likely
 * to go on hitting it; the user is offered to write it down where the next iteration reads it — as
 * a learning in progress.txt (the Add Learning command's append) or a note in an AGENTS.md (the Add
 * Note command's edit path) — or, when the folder has a GitHub repository, to open a GitHub issue
 * about it (ralph.github.openSignatureIssue: an open issue with the signature's label gets a
 * comment instead). Once per story and signature; nothing is written or posted without a click,
 * and the registrar refuses the post in Restricted Mode.
 */
import * as vscode from 'vscode';
import { repeatedFailure, repeatedSignature } from '../core/insights/signature';
import { Commands } from '../constants';
import { openSignatureIssue, type SignatureIssueFiled, signatureLabel } from '../node/github/signatureIssue';
import { tellWarning } from '../services/confirm';
import type { GitHubWorkspace } from '../services/githubWorkspace';
import type { RunsWorkspace } from '../services/runsWorkspace';
import { commandRegistrar } from './registrar';

export const OFFER_LEARNING = 'Add as Learning';
export const OFFER_NOTE = 'Add Note to AGENTS.md';
export const OFFER_ISSUE = 'Open GitHub Issue';

export function registerSignatureOffer(context: vscode.ExtensionContext, runs: RunsWorkspace, github: GitHubWorkspace, log: vscode.LogOutputChannel): void {
  const offered = new Set<string>();
  context.subscriptions.push(
    runs.onDidChange(() => {
      for (const { folder, runs: lines } of runs.list()) {
        const last = lines.at(-1);
        const signature = last?.outcome === 'failed' ? repeatedSignature(lines, last.storyId) : undefined;
        const key = `${folder.uri.toString()}#${last?.storyId}#${signature}`;
        if (!last || !signature || offered.has(key)) {
          continue;
        }
        offered.add(key);
        const text = `${last.storyId} failed twice in a row with: ${signature}`;
        // "GitHub configured": the folder has a GitHub repository (ralph.github.repository or its origin remote).
        const choices = github.forFolder(folder)?.repo ? [OFFER_LEARNING, OFFER_NOTE, OFFER_ISSUE] : [OFFER_LEARNING, OFFER_NOTE];
        void tellWarning(`Ralph: ${text}. Write it down for the next iteration?`, choices).then((pick) => {
          if (pick === OFFER_LEARNING) {
            void vscode.commands.executeCommand(Commands.addLearning, last.storyId, `Failed twice in a row with: ${signature} — find the cause before trying the same again.`, folder.uri);
          } else if (pick === OFFER_NOTE) {
            void vscode.commands.executeCommand(Commands.addAgentsNote, undefined, undefined, `${text}: find the cause before trying the same again.`);
          } else if (pick === OFFER_ISSUE) {
            void vscode.commands.executeCommand(Commands.githubSignatureIssue, folder.uri, last.storyId);
          }
        });
      }
    }),
  );

  /**
   * Opens the issue of a story's repeated failure (or comments on the open one with its label).
   * What is posted is read from runs.jsonl here, never taken from the arguments: they only name
   * the folder and the story.
   */
  commandRegistrar(context, log)(Commands.githubSignatureIssue, async (folderUri?: unknown, storyId?: unknown): Promise<SignatureIssueFiled> => {
    const folder = folderUri instanceof vscode.Uri ? vscode.workspace.getWorkspaceFolder(folderUri) : undefined;
    if (!folder || typeof storyId !== 'string') {
      throw new Error('Open GitHub Issue needs the folder and the story whose failure repeats: use the button of the repeated-failure notification.');
    }
    const failure = repeatedFailure(runs.forFolder(folder.uri)?.runs ?? [], storyId);
    if (!failure) {
      throw new Error(`${storyId} has not failed twice in a row with the same signature (.ralph/runs.jsonl): there is nothing to report.`);
    }
    const { client, repo } = await github.writerFor(folder);
    const filed = await openSignatureIssue(client, { storyId, ...failure, label: signatureLabel(failure.signature) });
    const what = filed.kind === 'created' ? `opened issue #${filed.number}` : `commented on the open issue #${filed.number} of the same signature`;
    log.info(`[github] ${repo.owner}/${repo.repo}: ${what} (${storyId}: ${failure.signature})`);
    void vscode.window.showInformationMessage(`Ralph: ${what} in ${repo.owner}/${repo.repo}.`, ...(filed.url ? ['Open Issue'] : [])).then((pick) => {
      if (pick && filed.url) {
        void vscode.env.openExternal(vscode.Uri.parse(filed.url));
      }
    });
    return filed;
  });
}
