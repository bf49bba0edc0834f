/**
 * The Runner: the extension's face of the run engine (engine.ts). It checks what a run needs
 * (trust, a folder on disk; then the preflight, preflight.ts, before the first iteration), reads prd.json only through the workspace model
 * (`PrdWorkspace.readNow`), plugs in the VS Code parts (the dirty-tree question, the preparer, the
 * terminal executor, the recorder) and tells the views about the runs: `onDidChange` (a run
 * started, changed or ended; `state` / `runs`), `onDidRecord` (a line was recorded),
 * `onDidChangeTerminals` and `terminalOf` (finished agents' terminals kept open). Runs are objects
 * with ids (src/core/loop/runSet.ts): one per folder at a time, several folders at once.
 */
import * as vscode from 'vscode';
import type { IssuePlanInput } from '../../core/artifacts/promptSection';
import { type Run, RunBusyError, type RunLimitWait } from '../../core/loop/runSet';
import { workspaceProblems } from '../../core/loop/preflight';
import type { LoopOutcome } from '../../core/loop/scheduler';
import type { PrdAnalysis } from '../../core/prd/index';
import { Disposable } from '../../util/disposable';
import type { PrdWorkspace } from '../prdWorkspace';
import { RunFileError } from '../../node/runFiles';
import { showFalseCompletion } from '../runMessages';
import { readSettings, type RalphSettings } from '../settings';
import { isTrusted } from '../trust';
import { RunEngine } from '../../core/loop/engine';
import { type PrepareContext, prepareIteration, RunError, storyPrompt } from './preparer';
import { preflight } from './preflight';
import { recordIteration } from '../../node/runRecorder';
import { acquireRunLock, type RunLock } from '../../node/parallel/runLock';
import { terminalExecutor, type TerminalRun } from './terminalExecutor';

export type { LoopOutcome } from '../../core/loop/scheduler';
export { RunError } from './preparer';

/** A run as the views see it. */
export interface RunnerState {
  readonly running: boolean;
  /** The run's id (also the loopId of its runs.jsonl lines). */
  readonly id?: string;
  readonly folder?: vscode.WorkspaceFolder;
  readonly storyId?: string;
  readonly storyTitle?: string;
  readonly iteration?: number;
  readonly maxIterations?: number;
  /** Start of the current iteration (ms since epoch). */
  readonly iterationStartedAt?: number;
  readonly terminal?: vscode.Terminal;
  readonly stopRequested?: 'after-iteration' | 'now';
  /** The running iteration's key (runKey: folder and prompt file). */
  readonly runKey?: string;
  /** While the loop waits out its agent's limit: until when, which agent, what limit. */
  readonly limit?: RunLimitWait;
}

export interface RunOptions {
  /** Run this story first (the user picked it), whatever its state. */
  readonly storyId?: string;
  readonly maxIterations: number;
}

export class Runner extends Disposable {
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<RunnerState>());
  /** Fires when a run starts, an iteration starts or ends, or a run stops (with that run's state). */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly onDidRecordEmitter = this.register(new vscode.EventEmitter<vscode.WorkspaceFolder>());
  /** Fires after a line was appended to runs.jsonl. */
  readonly onDidRecord = this.onDidRecordEmitter.event;
  private readonly onDidChangeTerminalsEmitter = this.register(new vscode.EventEmitter<void>());
  /** Fires when a finished run's terminal is kept or closed. */
  readonly onDidChangeTerminals = this.onDidChangeTerminalsEmitter.event;
  private readonly engine: RunEngine<vscode.WorkspaceFolder, TerminalRun>;
  /** Per run id: the terminal of its current (or last) iteration and that iteration's key. */
  private readonly agents = new Map<string, { terminal: vscode.Terminal; key: string }>();
  /** Per folder: the settings read when its run started (one run per folder). */
  private readonly contexts = new Map<string, PrepareContext>();
  /** Per folder: the workspace run lock its run holds. */
  private readonly locks = new Map<string, RunLock>();
  /** Agent terminals of finished iterations that are still open, oldest first, by prompt file. */
  private readonly finished: { key: string; terminal: vscode.Terminal }[] = [];

  constructor(
    private readonly prds: PrdWorkspace,
    private readonly log: vscode.LogOutputChannel,
    /** The story's GitHub issue plan for the prompt (the GitHub layer), if any. */
    private readonly issuePlanFor?: (folder: vscode.WorkspaceFolder, storyId: string) => Promise<IssuePlanInput | undefined>,
  ) {
    super();
    this.engine = new RunEngine({
      keyOf: (folder) => folder.uri.toString(),
      read: (folder) => this.read(folder),
      preflight: async (folder, step, before, requested) => {
        const outcome = await preflight(this.contextOf(folder), step, before, requested);
        this.contexts.set(folder.uri.toString(), outcome.ctx); // the settings the chooser wrote
        if (!outcome.stop) {
          // One run per workspace across windows, the CLI's `run` and the parallel loop; taken
          // once the run will go ahead, so a refused or cancelled run leaves no .ralph/ behind.
          const lock = await acquireRunLock(folder.uri.fsPath, 'VS Code').catch((e: Error) => {
            throw new RunError(e.message);
          });
          this.locks.set(folder.uri.toString(), lock);
        }
        return outcome;
      },
      prepare: (folder, step, before, allowDirty, presetId) => prepareIteration(this.contextOf(folder), step, before, allowDirty, presetId),
      executor: terminalExecutor,
      record: async (folder, line, after) => {
        await recordIteration(folder.uri.fsPath, line, after);
        this.onDidRecordEmitter.fire(folder);
      },
      log: { info: (line) => log.info(line.startsWith('[runner]') ? line : `[runner] ${line}`), warn: (line) => log.warn(line) },
      changed: (run) => {
        if (run.phase === 'finished') {
          this.agents.delete(run.id);
        }
        this.onDidChangeEmitter.fire(this.stateOf(run));
      },
      agentStarted: (run, handle, promptFile) => this.agents.set(run.id, { terminal: handle.terminal, key: runKey(run.folder.uri, promptFile) }),
      agentEnded: (run, handle, promptFile) => this.keepFinished(runKey(run.folder.uri, promptFile), handle.terminal, this.contextOf(run.folder).settings.keepFinishedTerminals),
      recorded: (_folder, record) => {
        if (record.falseComplete) {
          showFalseCompletion(record.notes.find((n) => n.startsWith('False completion')));
        }
      },
    });
    this.register(
      vscode.window.onDidCloseTerminal((t) => {
        const i = this.finished.findIndex((f) => f.terminal === t);
        if (i >= 0) {
          this.finished.splice(i, 1);
          this.onDidChangeTerminalsEmitter.fire();
        }
      }),
    );
  }

  /** Every run that has not ended, oldest first. */
  get runs(): RunnerState[] {
    return this.engine.all().map((r) => this.stateOf(r));
  }

  /** The newest run that has not ended (the one the status bar shows), else `{ running: false }`. */
  get state(): RunnerState {
    const all = this.engine.all();
    return all.length > 0 ? this.stateOf(all[all.length - 1]) : { running: false };
  }

  /** Whether a run is under way in this folder. */
  isRunning(folder: vscode.WorkspaceFolder): boolean {
    return this.engine.inFolder(folder) !== undefined;
  }

  /** The terminal of a run (its workspace folder and prompt file), while it is open. */
  terminalOf(folder: vscode.Uri, promptFile: string): vscode.Terminal | undefined {
    const key = runKey(folder, promptFile);
    return [...this.agents.values(), ...this.finished].find((a) => a.key === key)?.terminal;
  }

  /** Runs a loop in a workspace folder until a stop rule applies; resolves with why it stopped. */
  async run(folder: vscode.WorkspaceFolder, options: RunOptions): Promise<LoopOutcome> {
    const [refused] = workspaceProblems({ trusted: isTrusted(), scheme: folder.uri.scheme, folderName: folder.name });
    if (refused) {
      throw new RunError(refused.message);
    }
    const busy = this.engine.inFolder(folder);
    if (busy) {
      throw new RunError(new RunBusyError(busy).message);
    }
    const settings = readSettings(folder.uri);
    this.contexts.set(folder.uri.toString(), this.context(folder, settings));
    try {
      return await this.engine.run(folder, {
        maxIterations: options.maxIterations,
        storyId: options.storyId,
        noProgressLimit: settings.noProgressLimit,
        failureLimit: settings.failureLimit,
        prdLabel: settings.prdPath,
        // a command line of the user's own has no presets to fall back on
        fallback: settings.agentCommand.trim() === '' ? settings.agentFallback : [],
        maxLimitedInARow: settings.agentMaxLimitedInARow,
        budget: settings.budget,
      });
    } catch (e) {
      throw e instanceof RunFileError ? new RunError(e.message) : e;
    } finally {
      this.contexts.delete(folder.uri.toString());
      const lock = this.locks.get(folder.uri.toString());
      this.locks.delete(folder.uri.toString());
      await lock?.release();
    }
  }

  /** Ends the loop in this folder (every folder when none is named) after the running iteration. */
  stopAfterIteration(folder?: vscode.WorkspaceFolder): boolean {
    return this.engine.stopAfterIteration(inFolder(folder));
  }

  /** Ends the agent in this folder (every folder when none is named) now; the iteration is recorded as stopped. */
  /** Ends the wait for an agent's limit (Resume Now): the story runs again at once. False when no run waits. */
  resumeNow(folder?: vscode.WorkspaceFolder): boolean {
    return this.engine.resumeNow(inFolder(folder));
  }

  stopNow(folder?: vscode.WorkspaceFolder): Promise<boolean> {
    return this.engine.stopNow(inFolder(folder));
  }

  /** The prompt the next iteration would get (the given story, or the next ready one), written nowhere. */
  async previewPrompt(folder: vscode.WorkspaceFolder, storyId?: string): Promise<{ storyId: string; text: string }> {
    const analysis = await this.read(folder);
    const settings = readSettings(folder.uri);
    if (!analysis) {
      throw new RunError(`There is no ${settings.prdPath} in ${folder.name}.`);
    }
    const id = storyId ?? analysis.readiness.next?.story.id;
    if (!id) {
      const r = analysis.readiness;
      throw new RunError(r.state === 'complete' ? 'Every story passes: there is no next prompt.' : `No story is ready. ${r.explanation.join(' ')}`);
    }
    return { storyId: id, text: await storyPrompt(this.context(folder, settings), analysis, id) };
  }

  /** prd.json now, from the workspace model (undefined when there is none); a refused ralph.prdPath stops the run with its message. */
  private async read(folder: vscode.WorkspaceFolder): Promise<PrdAnalysis | undefined> {
    const entry = await this.prds.readNow(folder);
    if (!entry) {
      const refused = this.prds.refused().find((r) => r.folder.uri.toString() === folder.uri.toString());
      if (refused) {
        throw new RunError(refused.message);
      }
    }
    return entry?.analysis;
  }

  private context(folder: vscode.WorkspaceFolder, settings: RalphSettings): PrepareContext {
    return { folder, settings, log: this.log, issuePlanFor: this.issuePlanFor };
  }

  private contextOf(folder: vscode.WorkspaceFolder): PrepareContext {
    return this.contexts.get(folder.uri.toString()) ?? this.context(folder, readSettings(folder.uri));
  }

  private stateOf(run: Run<vscode.WorkspaceFolder>): RunnerState {
    const agent = this.agents.get(run.id);
    return {
      running: run.phase !== 'finished',
      id: run.id,
      folder: run.folder,
      storyId: run.storyId,
      storyTitle: run.storyTitle,
      iteration: run.iteration,
      maxIterations: run.maxIterations,
      iterationStartedAt: run.iterationStartedAt,
      terminal: agent?.terminal,
      stopRequested: run.stopRequested,
      runKey: agent?.key,
      limit: run.limit,
    };
  }

  /** Keeps the newest `keep` finished agent terminals open and closes older ones (never a running one). */
  private keepFinished(key: string, terminal: vscode.Terminal, keep: number): void {
    if (vscode.window.terminals.includes(terminal)) {
      this.finished.push({ key, terminal });
    }
    while (this.finished.length > keep) {
      const old = this.finished.shift();
      old?.terminal.dispose();
    }
    this.onDidChangeTerminalsEmitter.fire();
  }
}

/** Identifies a run across the Runs view and the runner: its folder and prompt file. */
export function runKey(folder: vscode.Uri, promptFile: string): string {
  return `${folder.toString()}#${promptFile}`;
}

function inFolder(folder: vscode.WorkspaceFolder | undefined): (run: Run<vscode.WorkspaceFolder>) => boolean {
  return (run) => folder === undefined || run.folder.uri.toString() === folder.uri.toString();
}
