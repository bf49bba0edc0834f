/** Commands that run agents: next ready story, this story, a loop; stop; preview the prompt. */
import * as vscode from 'vscode';
import { Commands } from '../constants';
import type { ParallelService } from '../services/parallel/parallelService';
import type { PrdWorkspace } from '../services/prdWorkspace';
import { type LoopOutcome, type Runner, RunError } from '../services/run/runner';
import { showRunError } from '../services/runMessages';
import { readSettings, settingId } from '../services/settings';
import { joinRelative } from '../services/workspaceFiles';
import { folderOf, pickFolder } from '../util/folders';
import type { ProposedContentProvider } from '../views/proposedContent';
import { StoryNode } from '../views/storyNodes';
import type { StoriesTreeProvider } from '../views/storiesTree';
import { commandRegistrar } from './registrar';
import { confirm } from '../services/confirm';
import { askMaxIterations } from './loopInput';
import { registerLimitNotice } from './limitNotice';

export interface RunCommandDeps {
  readonly prds: PrdWorkspace;
  readonly runner: Runner;
  readonly parallel: ParallelService;
  readonly tree: StoriesTreeProvider;
  readonly log: vscode.LogOutputChannel;
  /** Serves Preview Prompt's read-only document. */
  readonly proposed: ProposedContentProvider;
  /** Re-reads the Runs view. */
  readonly refreshRuns: () => void;
}

export function registerRunCommands(context: vscode.ExtensionContext, deps: RunCommandDeps): void {
  const { prds, runner, parallel, tree, log, proposed } = deps;
  const reg = commandRegistrar(context, log);

  const prdFolder = prdFolderPicker(prds);

  /**
   * Runs a loop and reports how it stopped. The returned promise settles when the loop ends (a
   * command caller such as a test can await it) and never rejects: errors are shown here, once.
   */
  const launch = (folder: vscode.WorkspaceFolder, maxIterations: number, storyId?: string): Promise<LoopOutcome | undefined> =>
    runner.run(folder, { maxIterations, storyId }).then(
      (o) => {
        report(folder, o);
        return o;
      },
      (e: Error) => {
        log.error(`[runner] ${e.message}`);
        void showRunError(`Ralph: ${e.message}`, e instanceof RunError ? e.help : {});
        return undefined;
      },
    );

  const report = (folder: vscode.WorkspaceFolder, o: LoopOutcome): void => {
    if (o.stop.reason === 'cancelled') {
      return; // the user chose not to run; nothing to report
    }
    if (o.stop.reason === 'failures') {
      // The agent kept exiting with an error: most often its command line is what to change.
      const { agentCommand } = readSettings(folder.uri);
      void showRunError(`Ralph: ${o.stop.message}`, { setting: agentCommand ? settingId('agentCommand') : settingId('agentPreset') });
      return;
    }
    const passed = o.iterations.filter((r) => r.outcome === 'passed').length;
    const ran = o.iterations.length > 0 ? ` ${o.iterations.length} iteration${o.iterations.length === 1 ? '' : 's'}, ${passed} passed.` : '';
    const message = `Ralph: ${o.stop.message}${ran}`;
    const show = o.stop.reason === 'all-pass' || (o.stop.reason === 'max-iterations' && o.iterations.length > 0) ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void show(message, 'Show Runs').then((p) => {
      if (p) {
        void vscode.commands.executeCommand('ralph.runs.focus');
      }
    });
  };

  // View-title buttons pass the focused node of their view (a story, a run), not a folder.
  reg(Commands.runNext, async (folderHint?: unknown) => {
    const folder = await prdFolder(folderHint);
    return folder ? launch(folder, 1) : undefined;
  });

  reg(Commands.runStory, async (arg?: unknown) => {
    const node = arg instanceof StoryNode ? arg : typeof arg === 'string' ? tree.findStory(arg) : undefined;
    if (!node) {
      throw new Error('Pick a story in the Stories view to run it.');
    }
    const status = node.state.status;
    if (status !== 'ready') {
      const why = status === 'done' ? `${node.id} already passes.` : `${node.id} is blocked: it waits on ${node.state.waitingOn.join(', ')}.`;
      if (!(await confirm(`${why} Run the agent on it anyway?`, 'Run Anyway'))) {
        return undefined;
      }
    }
    return launch(node.entry.folder, 1, node.id);
  });

  reg(Commands.startLoop, async (maxArg?: unknown, folderHint?: unknown) => {
    const folder = await prdFolder(folderHint ?? maxArg);
    if (!folder) {
      return undefined;
    }
    let max = typeof maxArg === 'number' ? maxArg : undefined;
    if (max === undefined) {
      max = await askMaxIterations('Start a Ralph loop', readSettings(folder.uri).maxIterations);
      if (max === undefined) {
        return undefined;
      }
    }
    return launch(folder, max);
  });

  // Both stops cover a parallel run as well: its agents finish (and merge), or end now.
  reg(Commands.stopAfterIteration, () => {
    const serial = runner.stopAfterIteration();
    if (!parallel.requestStop('after-iteration') && !serial) {
      void vscode.window.showInformationMessage('No Ralph loop is running.');
      return false;
    }
    vscode.window.setStatusBarMessage('Ralph: the loop stops after this iteration', 5000);
    return true;
  });

  reg(Commands.stopNow, async () => {
    const serial = await runner.stopNow();
    if (!parallel.requestStop('now') && !serial) {
      void vscode.window.showInformationMessage('No Ralph loop is running.');
      return false;
    }
    return true;
  });

  reg(Commands.resumeNow, () => {
    const serial = runner.resumeNow();
    if (!parallel.resumeNow() && !serial) {
      void vscode.window.showInformationMessage('No Ralph loop is waiting for an agent\'s limit.');
      return false;
    }
    return true;
  });

  // A loop that waits out its agent's limit, serial or parallel, says so once per wait.
  registerLimitNotice(context, runner, parallel);

  reg(Commands.previewPrompt, async (arg?: unknown) => {
    const node = arg instanceof StoryNode ? arg : typeof arg === 'string' ? tree.findStory(arg) : undefined;
    const folder = node?.entry.folder ?? (await prdFolder(arg));
    if (!folder) {
      return undefined;
    }
    const { text } = await runner.previewPrompt(folder, node?.id);
    // A read-only document (a preview: nothing to save, closing it asks nothing).
    const uri = proposed.propose(vscode.Uri.joinPath(folder.uri, `Prompt preview${node ? ` ${node.id}` : ''}.md`), text);
    const doc = await vscode.languages.setTextDocumentLanguage(await vscode.workspace.openTextDocument(uri), 'markdown');
    await vscode.window.showTextDocument(doc, { preview: true });
    return text;
  });

  /** The running agent's terminal, or (from a row of the Runs view) that run's terminal while it is open. */
  reg(Commands.showRunTerminal, (row?: { folder?: vscode.WorkspaceFolder; run?: { promptFile?: string } }) => {
    const terminal =
      row?.folder && typeof row.run?.promptFile === 'string' ? runner.terminalOf(row.folder.uri, row.run.promptFile) : runner.state.terminal;
    if (!terminal) {
      void vscode.window.showInformationMessage(row?.run ? 'The terminal of this run was closed.' : 'No agent is running.');
      return false;
    }
    terminal.show(false);
    return true;
  });

  reg(Commands.refreshRuns, () => {
    deps.refreshRuns();
  });

  reg(Commands.openRunPrompt, async (folder: vscode.Uri, relative: string) => {
    const uri = joinRelative(folder, relative);
    try {
      await vscode.window.showTextDocument(uri, { preview: true });
    } catch {
      throw new Error(`The prompt file ${relative} no longer exists.`);
    }
  });
}

/**
 * The folder to run in: the one the argument names (a Uri, or the node a view passes when the
 * command is clicked in its title or on a row), the only one with a prd.json, or the user's pick.
 */
export function prdFolderPicker(prds: PrdWorkspace): (hint?: unknown) => Promise<vscode.WorkspaceFolder | undefined> {
  return async (hint?: unknown): Promise<vscode.WorkspaceFolder | undefined> => {
    // A named folder wins, with or without a prd.json (the runner then says what is missing).
    const named = folderOf(hint);
    if (named) {
      return named;
    }
    const entries = prds.list();
    if (entries.length === 0) {
      const pick = await vscode.window.showWarningMessage('There is no prd.json in this workspace.', 'Create prd.json');
      if (pick) {
        await vscode.commands.executeCommand(Commands.createPrd);
      }
      return undefined;
    }
    return (await pickFolder({ hint, candidates: entries, folderOf: (e) => e.folder, placeHolder: 'Run in which folder?' }))?.folder;
  };
}
