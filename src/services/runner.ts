/**
 * Runs agent iterations: one story, the next ready story, or a loop of N. Each iteration makes
 * sure the PRD's branch is checked out (archiving the previous feature when the branch changed),
 * writes the prompt to `.ralph/prompts/`, runs the agent in a terminal, re-reads prd.json,
 * records a line in `.ralph/runs.jsonl`, and lets the pure LoopController decide what comes next.
 */
import { statSync } from 'node:fs';
import * as vscode from 'vscode';
import { shellKindOf, type ShellKind } from '../core/agents/presets';
import type { IssuePlanInput } from '../core/artifacts/promptSection';
import { buildPrompt, promptFileName } from '../core/context/prompt';
import { completeIteration, planAgentCommand } from '../core/loop/iteration';
import { type IterationRecord, LoopController, type StopStep } from '../core/loop/loop';
import { CompleteSignalDetector } from '../core/output';
import { analyzePrd, type PrdAnalysis } from '../core/prd/index';
import { planCompaction } from '../core/progress/compact';
import { decodeText } from '../core/progress/parse';
import { freshProgressText, LAST_BRANCH_FILE } from '../core/runs/archive';
import { RUNS_FILE, serializeRun } from '../core/runs/runs';
import { applyCompaction, CompactionError } from '../node/compaction';
import { PromptInputError, readPromptInputs } from '../node/promptInputs';
import { resolveInside, WorkspacePathError } from '../node/workspacePath';
import { Disposable } from '../util/disposable';
import { hasUnsavedChanges } from '../util/documents';
import { GitRepo } from './git';
import type { PrdWorkspace } from './prdWorkspace';
import { appendInside, archiveIfBranchChanged, readInsideText, RunFileError, writablePath, writeInside } from './runFiles';
import { askDirtyTree, type DirtyTreeAnswer, fewPaths, openSourceControl, showArchived, showFalseCompletion, showStashed } from './runMessages';
import { readSettings, type RalphSettings } from './settings';
import { TerminalRun } from './terminalRunner';
import { isTrusted } from './trust';
import { exists, joinRelative, readBytes } from './workspaceFiles';

/** @deprecated the file name lives in core/runs/runs.ts; re-exported for callers of this module. */
export { RUNS_FILE } from '../core/runs/runs';
const LAST_PRD_FILE = '.ralph/last-prd.json';

export interface RunnerState {
  readonly running: boolean;
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
}

export interface LoopOutcome {
  readonly stop: StopStep;
  readonly iterations: readonly IterationRecord[];
}

export interface RunOptions {
  /** Run this story first (the user picked it), whatever its state. */
  readonly storyId?: string;
  readonly maxIterations: number;
}

/** A readable error for the user; the loop stops with it and nothing is recorded as a crash. */
export class RunError extends Error {}

export class Runner extends Disposable {
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<RunnerState>());
  /** Fires when a run starts, an iteration starts or ends, or the loop stops. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly onDidRecordEmitter = this.register(new vscode.EventEmitter<vscode.WorkspaceFolder>());
  /** Fires after a line was appended to runs.jsonl. */
  readonly onDidRecord = this.onDidRecordEmitter.event;
  private readonly onDidChangeTerminalsEmitter = this.register(new vscode.EventEmitter<void>());
  /** Fires when a finished run's terminal is kept or closed. */
  readonly onDidChangeTerminals = this.onDidChangeTerminalsEmitter.event;
  private current: RunnerState = { running: false };
  private loop?: LoopController;
  private terminalRun?: TerminalRun;
  /** Agent terminals of finished iterations that are still open, oldest first, by prompt file. */
  private readonly finished: { key: string; terminal: vscode.Terminal }[] = [];
  /** The question asked before a run on a dirty working tree (tests replace it). */
  answerDirtyTree: DirtyTreeAnswer = askDirtyTree;

  constructor(
    private readonly prds: PrdWorkspace,
    private readonly log: vscode.LogOutputChannel,
    /** The story's GitHub issue plan for the prompt (the GitHub layer), if any. */
    private readonly issuePlanFor?: (folder: vscode.WorkspaceFolder, storyId: string) => Promise<IssuePlanInput | undefined>,
  ) {
    super();
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

  get state(): RunnerState {
    return this.current;
  }

  /** The terminal of a run (its workspace folder and prompt file), while it is open. */
  terminalOf(folder: vscode.Uri, promptFile: string): vscode.Terminal | undefined {
    const key = runKey(folder, promptFile);
    if (this.current.running && this.current.runKey === key) {
      return this.current.terminal;
    }
    return this.finished.find((f) => f.key === key)?.terminal;
  }

  /** Runs a loop in a workspace folder until a stop rule applies; resolves with why it stopped. */
  async run(folder: vscode.WorkspaceFolder, options: RunOptions): Promise<LoopOutcome> {
    if (!isTrusted()) {
      throw new RunError('Ralph runs agents only in a trusted workspace. Trust this folder to run agents; the views stay available read-only.');
    }
    if (this.current.running) {
      throw new RunError(`An agent is already running (${this.current.storyId}). Stop it first, or wait for it to finish.`);
    }
    if (folder.uri.scheme !== 'file') {
      throw new RunError(`Ralph runs agents only in folders on disk; ${folder.name} is a ${folder.uri.scheme}: folder.`);
    }
    const settings = readSettings(folder.uri);
    const loop = new LoopController({
      maxIterations: options.maxIterations,
      noProgressLimit: settings.noProgressLimit,
      failureLimit: settings.failureLimit,
      prdLabel: settings.prdPath,
    });
    this.loop = loop;
    const loopId = new Date().toISOString();
    this.setState({ running: true, folder, maxIterations: loop.config.maxIterations, iteration: 0 });
    let forced = options.storyId;
    // Asked once per run or loop, when an iteration is about to start (not when the loop stops at once).
    let treeChecked = false;
    let allowDirtyCheckout = false;
    try {
      for (;;) {
        const analysis = await this.readPrd(folder);
        let step = loop.nextStep(analysis);
        if (forced && analysis?.readable && step.kind !== 'stop') {
          const story = analysis.doc.stories.find((s) => s.id === forced);
          if (story) {
            step = { ...step, storyId: story.id, storyTitle: story.title };
          }
        } else if (forced && analysis?.readable && step.kind === 'stop' && !['stop-requested', 'max-iterations'].includes(step.reason)) {
          // The user asked for this story explicitly (a blocked or done one, after confirming).
          const story = analysis.doc.stories.find((s) => s.id === forced);
          if (story) {
            step = { kind: 'run', storyId: story.id, storyTitle: story.title, iteration: loop.status.iterations + 1, maxIterations: loop.config.maxIterations };
          }
        }
        forced = undefined;
        if (step.kind === 'stop') {
          this.log.info(`[runner] ${step.message}`);
          for (const d of step.details) {
            this.log.info(`[runner]   ${d}`);
          }
          return { stop: step, iterations: loop.records };
        }
        if (!analysis) {
          throw new RunError('prd.json disappeared.');
        }
        if (!treeChecked) {
          treeChecked = true;
          const answer = await this.checkWorkingTree(folder);
          if (answer.stop) {
            this.log.info(`[runner] ${answer.stop.message}`);
            return { stop: answer.stop, iterations: [] };
          }
          allowDirtyCheckout = answer.runAnyway;
        }
        const record = await this.iteration(folder, settings, analysis, step.storyId, step.iteration, loopId, loop, allowDirtyCheckout);
        for (const note of record.notes) {
          this.log.info(`[runner] ${note}`);
        }
        if (record.falseComplete) {
          showFalseCompletion(record.notes.find((n) => n.startsWith('False completion')));
        }
      }
    } catch (e) {
      throw e instanceof RunFileError ? new RunError(e.message) : e;
    } finally {
      this.loop = undefined;
      this.terminalRun?.dispose();
      this.terminalRun = undefined;
      this.setState({ running: false });
    }
  }

  /**
   * Before a run or loop: a working tree with uncommitted changes (`.ralph/` aside) would end up in
   * the agent's commit, so the user decides. Returns a stop step when nothing should run.
   */
  private async checkWorkingTree(folder: vscode.WorkspaceFolder): Promise<{ stop?: StopStep; runAnyway: boolean }> {
    const git = await GitRepo.open(folder.uri.fsPath);
    const dirty = git ? await git.uncommittedFiles() : [];
    if (!git || dirty.length === 0) {
      return { runAnyway: false };
    }
    const choice = await this.answerDirtyTree(folder, dirty);
    this.log.info(`[runner] uncommitted changes before the run (${fewPaths(dirty)}): ${choice}`);
    switch (choice) {
      case 'run':
        return { runAnyway: true };
      case 'stash': {
        const message = await git.stash(`ralph: uncommitted changes before the run of ${new Date().toISOString()}`);
        showStashed(message);
        return { runAnyway: false };
      }
      case 'commit':
        openSourceControl();
        return { runAnyway: false, stop: { kind: 'stop', reason: 'cancelled', message: 'Not started: commit your changes first, then run again.', details: dirty } };
      case 'cancel':
        return { runAnyway: false, stop: { kind: 'stop', reason: 'cancelled', message: 'Not started: the working tree has uncommitted changes.', details: dirty } };
    }
  }

  /** Ends the loop after the running iteration. */
  stopAfterIteration(): boolean {
    if (!this.loop || !this.current.running) {
      return false;
    }
    this.loop.requestStop('after-iteration');
    this.setState({ ...this.current, stopRequested: 'after-iteration' });
    return true;
  }

  /** Ends the agent process now; the iteration is recorded as stopped. */
  async stopNow(): Promise<boolean> {
    if (!this.loop || !this.current.running) {
      return false;
    }
    this.loop.requestStop('now');
    this.setState({ ...this.current, stopRequested: 'now' });
    await this.terminalRun?.stopNow();
    return true;
  }

  /** The prompt the next iteration would get (the given story, or the next ready one), written nowhere. */
  async previewPrompt(folder: vscode.WorkspaceFolder, storyId?: string): Promise<{ storyId: string; text: string }> {
    const analysis = await this.readPrd(folder);
    if (!analysis) {
      throw new RunError(`There is no ${readSettings(folder.uri).prdPath} in ${folder.name}.`);
    }
    const id = storyId ?? analysis.readiness.next?.story.id;
    if (!id) {
      const r = analysis.readiness;
      throw new RunError(r.state === 'complete' ? 'Every story passes: there is no next prompt.' : `No story is ready. ${r.explanation.join(' ')}`);
    }
    return { storyId: id, text: await this.prompt(folder, readSettings(folder.uri), analysis, id) };
  }

  /** Reads prd.json from disk (undefined when it does not exist); a ralph.prdPath leading outside the folder is refused. */
  async readPrd(folder: vscode.WorkspaceFolder): Promise<PrdAnalysis | undefined> {
    let uri = this.prds.prdUri(folder);
    if (uri.scheme === 'file') {
      try {
        uri = vscode.Uri.file(await resolveInside(folder.uri.fsPath, readSettings(folder.uri).prdPath, { what: 'ralph.prdPath' }));
      } catch (e) {
        throw e instanceof WorkspacePathError ? new RunError(e.message) : e;
      }
    }
    const bytes = await readBytes(uri);
    return bytes === undefined ? undefined : analyzePrd(bytes);
  }

  private async iteration(
    folder: vscode.WorkspaceFolder,
    settings: RalphSettings,
    before: PrdAnalysis,
    storyId: string,
    iteration: number,
    loopId: string,
    loop: LoopController,
    allowDirtyCheckout: boolean,
  ): Promise<IterationRecord> {
    const root = folder.uri.fsPath;
    const story = before.doc.stories.find((s) => s.id === storyId);
    const title = story?.title ?? '';
    const git = await GitRepo.open(root);
    if (!git) {
      this.log.info(`[runner] ${folder.name} is not a git repository (or git is missing): branch and commit steps are skipped.`);
    }
    // The previous feature's files are copied before the checkout (which may replace them), and
    // progress.txt restarts after it: rewriting a tracked file first would make the tree dirty and
    // the checkout refuse.
    const archived = await archiveIfBranchChanged(
      root,
      { lastBranch: LAST_BRANCH_FILE, lastPrd: LAST_PRD_FILE, prd: settings.prdPath, progress: settings.progressPath },
      before.doc.branchName,
    );
    if (git && before.doc.branchName && settings.manageBranch) {
      const result = await git.ensureBranch(before.doc.branchName, { allowDirty: allowDirtyCheckout }).catch(async (e: Error) => {
        await archived?.undo(); // nothing changed: the next attempt archives again
        throw new RunError(e.message);
      });
      if (result.action !== 'already-on-branch') {
        this.log.info(`[runner] git: ${result.action === 'created' ? `created ${before.doc.branchName} from ${result.from ?? 'HEAD'}` : `checked out ${before.doc.branchName}`}`);
      }
    }
    if (archived) {
      await writeInside(root, settings.progressPath, freshProgressText(new Date()), 'ralph.progressPath');
      this.log.info(`[runner] branch changed from ${archived.last} to ${before.doc.branchName}: archived the previous run to ${archived.target}/ and started a fresh ${settings.progressPath}`);
      showArchived(before.doc.branchName, archived.last, archived.target);
    }
    if (before.doc.branchName) {
      await writeInside(root, LAST_BRANCH_FILE, `${before.doc.branchName}\n`);
    }

    // .ralph/ is the extension's runtime state: it ignores itself, so it never dirties the tree or lands in a commit.
    if ((await readInsideText(root, '.ralph/.gitignore')) === undefined) {
      await writeInside(root, '.ralph/.gitignore', '# Ralph Workbench runtime state (prompts, runs, logs): not for git\n*\n');
    }
    await this.autoCompact(folder, settings);
    const promptText = await this.prompt(folder, settings, before, storyId);
    const promptsDir = joinRelative(folder.uri, '.ralph/prompts');
    const taken = new Set(await vscode.workspace.fs.readDirectory(promptsDir).then((e) => e.map(([n]) => n), () => [] as string[]));
    const promptRel = `.ralph/prompts/${promptFileName(new Date(), storyId, (n) => taken.has(n))}`;
    const promptPath = await writeInside(root, promptRel, promptText);

    const shell: ShellKind = shellKindOf(vscode.env.shell || '') ?? (process.platform === 'win32' ? 'powershell' : 'posix');
    const scripts = new Set<string>();
    for (const p of ['ralph.sh', 'scripts/ralph/ralph.sh']) {
      if (await exists(joinRelative(folder.uri, p))) {
        scripts.add(p);
      }
    }
    const plan = planAgentCommand({
      presetId: settings.agentPreset,
      command: settings.agentCommand,
      shell,
      exists: (p) => scripts.has(p),
      vars: { promptFile: promptPath, storyId, workspaceFolder: root },
      lookup: { path: process.env.PATH, pathExt: process.env.PATHEXT, platform: process.platform === 'win32' ? 'win32' : 'posix', exists: isFile },
    });
    if (!plan.ok) {
      throw new RunError(plan.message);
    }
    for (const w of plan.warnings) {
      this.log.warn(`[runner] ${w}`);
    }

    const headBefore = git ? await git.head() : undefined;
    const started = Date.now();
    const detector = new CompleteSignalDetector();
    const name = `Ralph: ${storyId} — ${title}`.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 80);
    this.log.info(`[runner] iteration ${iteration}/${loop.config.maxIterations}: ${storyId} (${settings.agentPreset}) in terminal "${name}"`);
    const run = new TerminalRun({ name, cwd: folder.uri, commandLine: plan.commandLine, env: { ...plan.env }, onOutput: (chunk) => detector.push(chunk) });
    this.terminalRun = run;
    const key = runKey(folder.uri, promptRel);
    this.setState({ ...this.current, storyId, storyTitle: title, iteration, iterationStartedAt: started, terminal: run.terminal, runKey: key });
    const result = await run.done;
    run.dispose();
    const ended = Date.now();
    this.keepFinished(key, run.terminal, settings.keepFinishedTerminals);

    const after = await this.readPrd(folder);
    const commits = git ? await git.commitsSince(headBefore) : undefined;
    const uncommitted = git ? await git.uncommittedFiles().catch(() => undefined) : undefined;
    if (after?.readable) {
      await writeInside(root, LAST_PRD_FILE, after.doc.text);
    }
    const { record, line } = completeIteration(loop, {
      storyId,
      storyTitle: title,
      agent: settings.agentPreset,
      started,
      ended,
      exitCode: result.exitCode ?? null,
      stopped: result.stopped,
      completeSignal: detector.seen,
      before,
      after,
      commits,
      uncommitted,
      promptFile: promptRel,
      iteration,
      loopId,
    });
    await appendInside(root, RUNS_FILE, serializeRun(line));
    if (line.uncommitted) {
      this.log.warn(`[runner] ${storyId}: the agent left uncommitted changes: ${fewPaths(line.uncommitted)}`);
    }
    this.log.info(`[runner] ${storyId}: ${record.outcome}, exit ${result.exitCode ?? '?'} (${result.via}), ${ended - started} ms`);
    this.onDidRecordEmitter.fire(folder);
    this.prds.refreshAll();
    return record;
  }

  /** Keeps the newest `keep` finished agent terminals open and closes older ones (never the running one). */
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

  /** The prompt of a story, from the one prompt-inputs reader (every path inside the folder, reads bounded). */
  private async prompt(folder: vscode.WorkspaceFolder, settings: RalphSettings, analysis: PrdAnalysis, storyId: string): Promise<string> {
    let inputs;
    try {
      inputs = readPromptInputs(
        folder.uri.fsPath,
        { progress: settings.progressPath, pin: settings.pinPath, template: settings.promptTemplateFile || undefined },
        { progress: 'ralph.progressPath', pin: 'ralph.pinPath', template: 'setting ralph.prompt.templateFile' },
      );
    } catch (e) {
      throw e instanceof PromptInputError ? new RunError(e.message) : e;
    }
    for (const note of inputs.notes) {
      this.log.warn(`[runner] ${note}`);
    }
    const issuePlan = await this.issuePlanFor?.(folder, storyId).catch(() => undefined);
    return buildPrompt({
      prd: analysis,
      storyId,
      progressText: inputs.progressText,
      pinText: inputs.pinText,
      template: inputs.template,
      issuePlan,
      readFile: inputs.readSpec,
      files: { prd: settings.prdPath, progress: settings.progressPath, pin: settings.pinPath },
    });
  }

  /** With ralph.progress.autoCompact, compacts progress.txt before an iteration when it is over the threshold. */
  private async autoCompact(folder: vscode.WorkspaceFolder, settings: RalphSettings): Promise<void> {
    const uri = joinRelative(folder.uri, settings.progressPath);
    if (!settings.autoCompact) {
      return;
    }
    const file = await writablePath(folder.uri.fsPath, settings.progressPath, 'ralph.progressPath');
    const bytes = await readBytes(vscode.Uri.file(file));
    if (!bytes || hasUnsavedChanges(uri)) {
      return;
    }
    const plan = planCompaction(decodeText(bytes), {
      threshold: settings.compactThreshold,
      keepRecentLines: settings.keepRecentLines,
      now: new Date(),
    });
    if (plan.changed) {
      try {
        const done = await applyCompaction(file, bytes, plan, new Date(), settings.progressPath);
        this.log.info(`[runner] auto-compaction: ${done.logLine}`);
      } catch (e) {
        // Compaction refuses (and changes nothing) when another process holds progress.txt open for
        // writing: the iteration still runs, on the uncompacted file.
        if (!(e instanceof CompactionError)) {
          throw e;
        }
        this.log.warn(`[runner] auto-compaction skipped: ${e.message}`);
      }
    }
  }

  private setState(state: RunnerState): void {
    this.current = state;
    this.onDidChangeEmitter.fire(state);
  }
}

/** Identifies a run across the Runs view and the runner: its folder and prompt file. */
export function runKey(folder: vscode.Uri, promptFile: string): string {
  return `${folder.toString()}#${promptFile}`;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
