/**
 * The parallel loop's commands (issue 19): Run Wave, Start Parallel Loop…, Stop All, and the
 * actions of a Needs You item (Retry, Skip Story, Show Terminal, Open Worktree, Open Conflict).
 * Thin: the ParallelService runs the loop; a run that cannot start says why as an error message.
 */
import * as vscode from 'vscode';
import type { ParallelStop } from '../core/loop/parallelLoop';
import { Commands } from '../constants';
import type { InterruptedRuns } from '../services/parallel/interruptedRuns';
import type { NeedsYouEntry, ParallelService, ParallelStartOptions } from '../services/parallel/parallelService';
import type { PrdWorkspace } from '../services/prdWorkspace';
import { showRunError } from '../services/runMessages';
import { readSettings } from '../services/settings';
import { joinRelative } from '../services/workspaceFiles';
import { NeedsYouItemNode } from '../views/needsYouNodes';
import { StoryNode } from '../views/storyNodes';
import { askCount, askMaxIterations } from './loopInput';
import { commandRegistrar } from './registrar';
import { prdFolderPicker } from './runCommands';

export interface ParallelCommandDeps {
  readonly prds: PrdWorkspace;
  readonly parallel: ParallelService;
  readonly interrupted: InterruptedRuns;
  readonly log: vscode.LogOutputChannel;
}

export function registerParallelCommands(context: vscode.ExtensionContext, deps: ParallelCommandDeps): void {
  const { prds, parallel, interrupted, log } = deps;
  const reg = commandRegistrar(context, log);
  const prdFolder = prdFolderPicker(prds);

  /** Runs the loop; settles when it ends (never rejects: a run that could not start is shown here). */
  const launch = (folder: vscode.WorkspaceFolder, options: ParallelStartOptions): Promise<ParallelStop | undefined> =>
    parallel.start(folder, options).then(
      (stop) => {
        // the limit breaker needs the user as a Needs You item does (wait for the reset, or change the plan)
        const show = stop.needsYou.length > 0 || stop.reason === 'rate-limit' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
        void show(`Ralph: ${stop.message}`);
        return stop;
      },
      (e: Error) => {
        log.error(`[parallel] ${e.message}`);
        void showRunError(`Ralph: ${e.message}`, {});
        return undefined;
      },
    );

  reg(Commands.parallelRunWave, async (folderHint?: unknown) => {
    const folder = await prdFolder(folderHint);
    if (!folder) {
      return undefined;
    }
    const entry = await prds.readNow(folder);
    const ready = entry?.analysis.readiness.order.filter((s) => s.status === 'ready').map((s) => s.story.id) ?? [];
    if (ready.length === 0) {
      void vscode.window.showInformationMessage(`Ralph: no story is ready in ${folder.name}.`);
      return undefined;
    }
    // The stories ready now, each once; nothing new starts after them.
    return launch(folder, { only: ready, maxIterations: ready.length });
  });

  reg(Commands.parallelStartLoop, async (maxArg?: unknown, agentsArg?: unknown, folderHint?: unknown) => {
    const folder = await prdFolder(folderHint ?? (typeof maxArg === 'number' ? undefined : maxArg));
    if (!folder) {
      return undefined;
    }
    const settings = readSettings(folder.uri);
    const max = typeof maxArg === 'number' ? maxArg : await askMaxIterations('Start a parallel Ralph loop', settings.maxIterations);
    if (max === undefined) {
      return undefined;
    }
    const agents =
      typeof agentsArg === 'number'
        ? agentsArg
        : await askCount({ title: 'Start a parallel Ralph loop', prompt: 'How many agents at once? Each works in its own git worktree.', value: settings.parallelMaxAgents, max: 32 });
    if (agents === undefined) {
      return undefined;
    }
    return launch(folder, { maxIterations: max, maxAgents: agents });
  });

  reg(Commands.parallelStopAll, () => {
    if (!parallel.requestStop('now')) {
      void vscode.window.showInformationMessage('No parallel Ralph run is under way.');
      return false;
    }
    return true;
  });

  // A running story's row: its agent ends; in a parallel run the others go on (the story then
  // needs you), in a serial run this is Stop Now.
  reg(Commands.parallelStopAgent, async (arg?: unknown, folderHint?: unknown) => {
    const node = arg instanceof StoryNode ? arg : undefined;
    const storyId = node?.id ?? (typeof arg === 'string' ? arg : undefined);
    const folder = node?.entry.folder ?? (await prdFolder(folderHint));
    if (!storyId || !folder) {
      throw new Error('Pick a running story in the Stories view.');
    }
    if (await parallel.stopAgent(folder, storyId)) {
      return true;
    }
    return vscode.commands.executeCommand<boolean>(Commands.stopNow);
  });

  /** The folder a Needs You row, a folder argument or the picker names. */
  const folderOfArg = (arg: unknown): Promise<vscode.WorkspaceFolder | undefined> => (arg instanceof NeedsYouItemNode ? Promise.resolve(arg.item.folder) : prdFolder(arg));

  // Resume (the interrupted run's notification, a kept worktree's row): the runner resumes from
  // .ralph/parallel.json; once it ends, the worktrees still kept (orphans) are listed again.
  reg(Commands.parallelResume, async (arg?: unknown) => {
    const folder = await folderOfArg(arg);
    return folder ? launch(folder, {}) : undefined;
  });

  reg(Commands.parallelCheckInterrupted, async (arg?: unknown) => {
    const folder = await folderOfArg(arg);
    return folder ? interrupted.check(folder) : undefined;
  });

  /** The item a row, a notification or a caller (a story id) names. */
  const itemOf = (arg: unknown): NeedsYouEntry => {
    const item = arg instanceof NeedsYouItemNode ? arg.item : typeof arg === 'string' ? parallel.needsYou().find((i) => i.storyId === arg) : undefined;
    if (!item) {
      throw new Error('Pick an item under Needs You in the Stories view.');
    }
    return item;
  };

  reg(Commands.needsYouRetry, (arg?: unknown) => {
    const item = itemOf(arg);
    const r = parallel.retry(item);
    if (!r.retried) {
      void vscode.window.showInformationMessage(`Ralph: ${item.storyId} cannot be retried now.`);
      return false;
    }
    // After the run ended, a new run of that story: its end is this command's result.
    return r.done ? r.done.then((stop) => stop, (e: Error) => void showRunError(`Ralph: ${e.message}`, {})) : true;
  });

  reg(Commands.needsYouSkip, (arg?: unknown) => parallel.skip(itemOf(arg)));

  reg(Commands.needsYouShowTerminal, async (arg?: unknown) => {
    const item = itemOf(arg);
    const terminal = parallel.terminalOf(item);
    if (terminal) {
      terminal.show(false);
      return true;
    }
    if (!item.logFile) {
      void vscode.window.showInformationMessage(`Ralph: ${item.storyId}'s agent has no terminal or log in this window.`);
      return false;
    }
    await vscode.window.showTextDocument(joinRelative(item.folder.uri, item.logFile), { preview: true });
    return true;
  });

  reg(Commands.needsYouOpenWorktree, async (arg?: unknown) => {
    const item = itemOf(arg);
    if (!item.worktree) {
      throw new Error(`${item.storyId} has no worktree this window knows of.`);
    }
    // A worktree is a checkout of its own: a window of its own, as Git's "Open Worktree" does.
    await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(item.worktree), { forceNewWindow: true });
  });

  reg(Commands.needsYouRemoveWorktree, async (arg?: unknown) => {
    const item = itemOf(arg);
    await parallel.removeKept(item);
    void vscode.window.showInformationMessage(`Ralph: the worktree ${item.worktree ?? ''} of ${item.storyId} was removed.`);
    return true;
  });

  reg(Commands.needsYouOpenConflict, async (arg?: unknown) => {
    const files = await parallel.openConflict(itemOf(arg));
    for (const f of files) {
      await vscode.window.showTextDocument(vscode.Uri.file(f), { preview: false });
    }
    return files;
  });
}
