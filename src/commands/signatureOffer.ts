/**
 * Issue 21: when a story fails twice in a row with the same failure signature, the loop is likely
 * to go on hitting it; the user is offered to write it down where the next iteration reads it — as
 * a learning in progress.txt (the Add Learning command's append) or a note in an AGENTS.md (the Add
 * Note command's edit path). Once per story and signature; nothing is written without a click.
 */
import * as vscode from 'vscode';
import { repeatedSignature } from '../core/insights/signature';
import { Commands } from '../constants';
import type { RunsWorkspace } from '../services/runsWorkspace';

export const OFFER_LEARNING = 'Add as Learning';
export const OFFER_NOTE = 'Add Note to AGENTS.md';

export function registerSignatureOffer(context: vscode.ExtensionContext, runs: RunsWorkspace): void {
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
        void vscode.window.showWarningMessage(`Ralph: ${text}. Write it down for the next iteration?`, OFFER_LEARNING, OFFER_NOTE).then((pick) => {
          if (pick === OFFER_LEARNING) {
            void vscode.commands.executeCommand(Commands.addLearning, last.storyId, `Failed twice in a row with: ${signature} — find the cause before trying the same again.`, folder.uri);
          } else if (pick === OFFER_NOTE) {
            void vscode.commands.executeCommand(Commands.addAgentsNote, undefined, undefined, `${text}: find the cause before trying the same again.`);
          }
        });
      }
    }),
  );
}
