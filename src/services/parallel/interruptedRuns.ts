/**
 * Crash safety in VS Code (issue 19): after a window reload, a crash or a killed extension host,
 * a folder whose `.ralph/parallel.json` says a parallel run was under way, and whose run lock's
 * holder is gone, gets ONE notification offering to resume it (Resume, Show Worktrees, Not Now),
 * and its kept worktrees are listed under Needs You until a run resumes or they are removed.
 * Checked on activation, when a folder is added, and when trust is granted; only in a trusted
 * workspace; `ralph.parallel.checkInterrupted` runs the same check (the host tests call it).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../../core/errorMessage';
import { interruptedMessage, type InterruptedRun } from '../../core/parallel/interrupted';
import { inspectInterrupted } from '../../node/parallel/interrupted';
import { Commands, Views } from '../../constants';
import { Disposable } from '../../util/disposable';
import { ask } from '../confirm';
import { readSettings } from '../settings';
import { isTrusted } from '../trust';
import type { NeedsYouEntry, ParallelService } from './parallelService';

export const RESUME = 'Resume';
export const SHOW_WORKTREES = 'Show Worktrees';

export interface InterruptedCheck {
  /** The notification shown, when one was. */
  readonly notification?: string;
  /** The button pressed (undefined: Not Now, or no notification). */
  readonly answer?: string;
  /** The kept worktrees now listed under Needs You. */
  readonly kept: number;
  /** A live process holds the run lock: nothing was offered. */
  readonly liveHolder?: string;
}

export class InterruptedRuns extends Disposable {
  /** Folders whose interrupted run was offered in this window: one notification, not one per check. */
  private readonly offered = new Set<string>();
  /** The notifications shown, oldest first (the test API reads them). */
  readonly notifications: string[] = [];
  /** Per folder: the check under way; checks of one folder run one after another, so the latest look wins. */
  private readonly checks = new Map<string, Promise<unknown>>();
  private readonly runningFolders = new Set<string>();

  constructor(
    private readonly parallel: ParallelService,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
  }

  /**
   * Checks every folder now, each folder added later, every folder again when the workspace
   * becomes trusted, and a folder whose parallel run ended (what it kept is listed again).
   */
  watch(): void {
    const folders = () => vscode.workspace.workspaceFolders ?? [];
    this.register(vscode.workspace.onDidChangeWorkspaceFolders((e) => e.added.forEach((f) => void this.check(f))));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => folders().forEach((f) => void this.check(f))));
    this.register(
      this.parallel.onDidChange(() => {
        for (const f of folders()) {
          const key = f.uri.toString();
          if (this.parallel.isRunning(f)) {
            this.runningFolders.add(key);
          } else if (this.runningFolders.delete(key)) {
            void this.check(f, { offer: false });
          }
        }
      }),
    );
    folders().forEach((f) => void this.check(f));
  }

  /**
   * Lists the folder's kept worktrees under Needs You and, when its run was cut off while under
   * way and has not been offered yet, asks whether to resume it. Never throws: a damaged state
   * file is shown as a warning naming the place.
   */
  check(folder: vscode.WorkspaceFolder, options: { readonly offer?: boolean } = {}): Promise<InterruptedCheck> {
    const key = folder.uri.toString();
    const next = (this.checks.get(key) ?? Promise.resolve()).then(() => this.checkNow(folder, options));
    this.checks.set(key, next.catch(() => undefined));
    return next;
  }

  private async checkNow(folder: vscode.WorkspaceFolder, options: { readonly offer?: boolean }): Promise<InterruptedCheck> {
    if (!isTrusted() || folder.uri.scheme !== 'file' || this.parallel.isRunning(folder)) {
      return { kept: 0 };
    }
    const s = readSettings(folder.uri);
    const root = folder.uri.fsPath;
    let found: Awaited<ReturnType<typeof inspectInterrupted>>;
    try {
      found = await inspectInterrupted(root, { prdPath: s.prdPath, worktreeRoot: s.parallelWorktreeRoot.trim() ? path.resolve(root, s.parallelWorktreeRoot) : undefined });
    } catch (e) {
      this.log.warn(`[parallel] ${folder.name}: ${errorMessage(e)}`);
      void vscode.window.showWarningMessage(`Ralph: ${errorMessage(e)}`);
      return { kept: 0 };
    }
    if (found.liveHolder) {
      // A CLI or another window is running it: never offered, its lock never taken.
      this.log.info(`[parallel] ${folder.name}: a parallel run is under way (${found.liveHolder}).`);
      return { kept: 0, liveHolder: found.liveHolder };
    }
    const run = found.run;
    if (this.parallel.isRunning(folder)) {
      return { kept: 0 }; // a run began meanwhile: it resumes the state itself
    }
    this.parallel.setRecovered(folder, run ? entriesOf(folder, run) : []);
    const key = folder.uri.toString();
    if (!run?.underWay || options.offer === false || this.offered.has(key)) {
      return { kept: run?.rows.length ?? 0 };
    }
    this.offered.add(key);
    const notification = `Ralph: ${interruptedMessage(folder.name, run)}`;
    this.notifications.push(notification);
    this.log.info(`[parallel] ${notification}`);
    const answer = await ask(notification, [RESUME, SHOW_WORKTREES], { modal: false, dismiss: 'Not Now' });
    if (answer === RESUME) {
      void vscode.commands.executeCommand(Commands.parallelResume, folder);
    } else if (answer === SHOW_WORKTREES) {
      void vscode.commands.executeCommand(`${Views.stories}.focus`);
    }
    return { notification, answer, kept: run.rows.length };
  }
}

function entriesOf(folder: vscode.WorkspaceFolder, run: InterruptedRun): NeedsYouEntry[] {
  return run.rows.map((r) => ({
    folder,
    storyId: r.storyId,
    storyTitle: r.storyId,
    why: r.why,
    message: r.message,
    worktree: r.worktree,
    branch: r.branch,
    commits: r.commits,
    conflictFiles: r.conflictFiles,
    recovered: true,
  }));
}
