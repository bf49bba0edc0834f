/**
 * GitHub as the engine, in VS Code (issue 20): Publish Stories to GitHub… and Sync with GitHub.
 * Both need a trusted workspace (needs.ts; the registrar checks before the handler runs). Sync
 * fetches the feature branch and compares its prd.json with the local one: stories that pass on
 * GitHub are offered to mark passing here, never marked silently; stories that pass here and not
 * there are said, and left as they are.
 */
import * as vscode from 'vscode';
import { setPassesByIdEdits } from '../core/prd/graphEdits';
import { Commands } from '../constants';
import { ask } from '../services/confirm';
import { editTextFile } from '../services/fileEdits';
import type { FolderRemote, GitHubFollow } from '../services/githubFollow';
import type { DispatchOutcome, GitHubDispatcher } from '../services/githubDispatch';
import type { GitHubPublisher, PublishOutcome } from '../services/githubPublish';
import type { PrdWorkspace } from '../services/prdWorkspace';
import { folderOf, pickFolder } from '../util/folders';
import { commandRegistrar } from './registrar';

export interface PublishCommandDeps {
  readonly publisher: GitHubPublisher;
  readonly dispatcher: GitHubDispatcher;
  readonly follow: GitHubFollow;
  readonly prds: PrdWorkspace;
  readonly log: vscode.LogOutputChannel;
}

export function registerPublishCommands(context: vscode.ExtensionContext, deps: PublishCommandDeps): void {
  const reg = commandRegistrar(context, deps.log);
  reg(Commands.githubPublishStories, async (folderUri?: unknown): Promise<PublishOutcome | undefined> => {
    const folder = await pickPrdFolder(deps.prds, folderUri, 'Publish the stories of which folder?');
    if (!folder) {
      return undefined;
    }
    const outcome = await deps.publisher.publish(folder);
    void deps.follow.refresh(folder);
    return outcome;
  });

  reg(Commands.githubDispatch, async (folderUri?: unknown): Promise<DispatchOutcome | undefined> => {
    const folder = await pickPrdFolder(deps.prds, folderUri, 'Dispatch the ready stories of which folder?');
    if (!folder) {
      return undefined;
    }
    const outcome = await deps.dispatcher.dispatch(folder);
    if (outcome.publishFirst) {
      await deps.publisher.publish(folder);
      return outcome;
    }
    void deps.follow.refresh(folder);
    return outcome;
  });

  reg(Commands.githubSync, async (folderUri?: unknown): Promise<FolderRemote['sync'] | undefined> => {
    const folder = await pickPrdFolder(deps.prds, folderUri, 'Sync which folder with GitHub?');
    if (!folder) {
      return undefined;
    }
    const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Syncing with GitHub…' }, () => deps.follow.sync(folder));
    const sync = r.sync;
    if (!sync) {
      return undefined;
    }
    const entry = deps.prds.forFolder(folder.uri);
    if (sync.passedRemotely.length > 0 && entry) {
      const ids = list(sync.passedRemotely);
      const take = await ask(`${count(sync.passedRemotely.length)} on GitHub's feature branch and not here: ${ids}.`, ['Mark Passing Here'], {
        detail: 'Their work was merged on GitHub. Mark them passing in your prd.json (one undoable edit), or pull the feature branch to get the work itself.',
        severity: 'info',
      });
      if (take === 'Mark Passing Here') {
        // Each story's edit is within its own object, against the same text: they never overlap.
        await editTextFile(entry.uri, (text) => sync.passedRemotely.flatMap((id) => {
          const r = setPassesByIdEdits(text, id, true);
          return r.ok ? r.edits : [];
        }));
      }
    }
    if (sync.conflicts.length > 0) {
      void vscode.window.showWarningMessage(`${list(sync.conflicts)} ${sync.conflicts.length === 1 ? 'passes' : 'pass'} here but not on GitHub's feature branch: left as they are. Push your work, or mark ${sync.conflicts.length === 1 ? 'it' : 'them'} not passing.`);
    } else if (sync.passedRemotely.length === 0) {
      void vscode.window.showInformationMessage('In sync: prd.json here and on GitHub’s feature branch agree on which stories pass.');
    }
    return sync;
  });
}

function count(n: number): string {
  return n === 1 ? '1 story passes' : `${n} stories pass`;
}

function list(ids: readonly string[]): string {
  return ids.length <= 5 ? ids.join(', ') : `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more`;
}

/** The folder the caller named (a view's node, a Uri), else the only one with a prd.json, else a pick. */
async function pickPrdFolder(prds: PrdWorkspace, hint: unknown, placeHolder: string): Promise<vscode.WorkspaceFolder | undefined> {
  const entry = await pickFolder({ hint, candidates: prds.list(), folderOf: (e) => e.folder, placeHolder });
  return entry?.folder ?? (prds.list().length === 0 ? folderOf(hint) ?? vscode.workspace.workspaceFolders?.[0] : undefined);
}
