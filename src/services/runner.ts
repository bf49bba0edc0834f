/**
 * Runs agent iterations: one story, the next ready story, or a loop of N. Each iteration makes
 * sure the PRD's branch is checked out (archiving the previous feature when the branch changed),
 * writes the prompt to `.ralph/prompts/`, runs the agent in a terminal, re-reads prd.json,
 * records a line in `.ralph/runs.jsonl`, and lets the pure LoopController decide what comes next.
 */
import * as vscode from 'vscode';
import {
  checkTemplate,
  commandExecutable,
  expandTemplate,
  getPreset,
  missingExecutableMessage,
  presetTemplate,
  ralphShTemplate,
  resolveExecutable,
  shellKindOf,
  type ShellKind,
  TemplateError,
} from '../core/agents/presets';
import type { IssuePlanInput } from '../core/artifacts/promptSection';
import { buildPrompt, promptFileName } from '../core/context/prompt';
import { planCompaction } from '../core/progress/compact';
import { decodeText } from '../core/progress/parse';
import { applyCompaction } from '../node/compaction';
import { parsePin } from '../core/pin/format';
import { type IterationRecord, LoopController, type StopStep } from '../core/loop/loop';
import { CompleteSignalDetector } from '../core/output';
import { analyzePrd, type PrdAnalysis } from '../core/prd/index';
import { archiveFolderName, freshProgressText, LAST_BRANCH_FILE, parseLastBranch, shouldArchive } from '../core/runs/archive';
import { detectFeatCommit, type RunRecord, serializeRun } from '../core/runs/runs';
import { Disposable } from '../util/disposable';
import { GitRepo } from './git';
import type { PrdWorkspace } from './prdWorkspace';
import { readSettings, type RalphSettings } from './settings';
import { TerminalRun } from './terminalRunner';
import { appendText, exists, joinRelative, readBytes, readText, writeText } from './workspaceFiles';

export const RUNS_FILE = '.ralph/runs.jsonl';
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
  private current: RunnerState = { running: false };
  private loop?: LoopController;
  private terminalRun?: TerminalRun;

  constructor(
    private readonly prds: PrdWorkspace,
    private readonly log: vscode.LogOutputChannel,
    /** The story's GitHub issue plan for the prompt (the GitHub layer), if any. */
    private readonly issuePlanFor?: (folder: vscode.WorkspaceFolder, storyId: string) => Promise<IssuePlanInput | undefined>,
  ) {
    super();
  }

  get state(): RunnerState {
    return this.current;
  }

  /** Runs a loop in a workspace folder until a stop rule applies; resolves with why it stopped. */
  async run(folder: vscode.WorkspaceFolder, options: RunOptions): Promise<LoopOutcome> {
    if (!vscode.workspace.isTrusted) {
      throw new RunError('Ralph runs agents only in a trusted workspace. Trust this folder to run agents; the views stay available read-only.');
    }
    if (this.current.running) {
      throw new RunError(`An agent is already running (${this.current.storyId}). Stop it first, or wait for it to finish.`);
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
        const record = await this.iteration(folder, settings, analysis, step.storyId, step.iteration, loopId, loop);
        for (const note of record.notes) {
          this.log.info(`[runner] ${note}`);
        }
        if (record.falseComplete) {
          void vscode.window.showWarningMessage(`Ralph: ${record.notes.find((n) => n.startsWith('False completion')) ?? 'False completion.'}`);
        }
      }
    } finally {
      this.loop = undefined;
      this.terminalRun?.dispose();
      this.terminalRun = undefined;
      this.setState({ running: false });
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

  /** Reads prd.json from disk (undefined when it does not exist). */
  async readPrd(folder: vscode.WorkspaceFolder): Promise<PrdAnalysis | undefined> {
    const bytes = await readBytes(this.prds.prdUri(folder));
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
  ): Promise<IterationRecord> {
    const story = before.doc.stories.find((s) => s.id === storyId);
    const title = story?.title ?? '';
    const git = await GitRepo.open(folder.uri.fsPath);
    if (!git) {
      this.log.info(`[runner] ${folder.name} is not a git repository (or git is missing): branch and commit steps are skipped.`);
    }
    // The previous feature's files are copied before the checkout (which may replace them), and
    // progress.txt restarts after it: rewriting a tracked file first would make the tree dirty and
    // the checkout refuse.
    const archived = await this.archiveIfBranchChanged(folder, settings, before);
    if (git && before.doc.branchName && settings.manageBranch) {
      const result = await git.ensureBranch(before.doc.branchName).catch(async (e: Error) => {
        if (archived) {
          // Nothing changed: the next attempt archives again.
          await vscode.workspace.fs.delete(archived.createdUri, { recursive: true }).then(undefined, () => undefined);
        }
        throw new RunError(e.message);
      });
      if (result.action !== 'already-on-branch') {
        this.log.info(`[runner] git: ${result.action === 'created' ? `created ${before.doc.branchName} from ${result.from ?? 'HEAD'}` : `checked out ${before.doc.branchName}`}`);
      }
    }
    if (archived) {
      await writeText(joinRelative(folder.uri, settings.progressPath), freshProgressText(new Date()));
      this.log.info(`[runner] branch changed from ${archived.last} to ${before.doc.branchName}: archived the previous run to ${archived.target}/ and started a fresh ${settings.progressPath}`);
      void vscode.window.showInformationMessage(`Ralph: new feature "${before.doc.branchName}". The previous run (${archived.last}) was archived to ${archived.target}/.`);
    }
    if (before.doc.branchName) {
      await writeText(joinRelative(folder.uri, LAST_BRANCH_FILE), `${before.doc.branchName}\n`);
    }

    // .ralph/ is the extension's runtime state: it ignores itself, so it never dirties the tree or lands in a commit.
    const ralphIgnore = joinRelative(folder.uri, '.ralph/.gitignore');
    if (!(await exists(ralphIgnore))) {
      await writeText(ralphIgnore, '# Ralph Workbench runtime state (prompts, runs, logs): not for git\n*\n');
    }
    await this.autoCompact(folder, settings);
    const promptText = await this.prompt(folder, settings, before, storyId);
    const promptsDir = joinRelative(folder.uri, '.ralph/prompts');
    const taken = new Set((await vscode.workspace.fs.readDirectory(promptsDir).then((e) => e.map(([n]) => n), () => [] as string[])));
    const promptName = promptFileName(new Date(), storyId, (n) => taken.has(n));
    const promptUri = vscode.Uri.joinPath(promptsDir, promptName);
    await writeText(promptUri, promptText);
    const commandLine = await this.commandLine(folder, settings, promptUri.fsPath, storyId);

    const headBefore = git ? await git.head() : undefined;
    const started = Date.now();
    const detector = new CompleteSignalDetector();
    const name = `Ralph: ${storyId} — ${title}`.replace(/[\r\n]+/g, ' ').slice(0, 80);
    this.log.info(`[runner] iteration ${iteration}/${loop.config.maxIterations}: ${storyId} (${settings.agentPreset}) in terminal "${name}"`);
    const run = new TerminalRun({
      name,
      cwd: folder.uri,
      commandLine,
      env: { RALPH_STORY_ID: storyId, RALPH_PROMPT_FILE: promptUri.fsPath },
      onOutput: (chunk) => detector.push(chunk),
    });
    this.terminalRun = run;
    this.setState({ ...this.current, storyId, storyTitle: title, iteration, iterationStartedAt: started, terminal: run.terminal });
    const result = await run.done;
    run.dispose();
    const ended = Date.now();

    const after = await this.readPrd(folder);
    const readable = after?.readable ?? false;
    const afterStory = after?.doc.stories.find((s) => s.id === storyId);
    const commits = git ? await git.commitsSince(headBefore) : [];
    const commit = git ? detectFeatCommit(commits, storyId) : undefined;
    if (after?.readable) {
      await writeText(joinRelative(folder.uri, LAST_PRD_FILE), after.doc.text);
    }
    const passingBefore = before.readiness.counts.done;
    const passingAfter = after?.readiness.counts.done ?? 0;
    const record = loop.recordIteration({
      storyId,
      exitCode: result.exitCode ?? null,
      passingBefore,
      passingAfter,
      totalAfter: after?.readiness.counts.total,
      storyPasses: afterStory?.passes ?? false,
      completeSignal: detector.seen,
      stopped: result.stopped,
      prdReadable: readable,
      commit: commit === undefined ? undefined : commit?.subject ?? null,
    });
    const line: RunRecord = {
      start: new Date(started).toISOString(),
      end: new Date(ended).toISOString(),
      storyId,
      storyTitle: title,
      agent: settings.agentPreset,
      exitCode: result.exitCode ?? null,
      durationMs: ended - started,
      passingBefore,
      passingAfter,
      storyPasses: afterStory?.passes ?? false,
      commit: commit ?? null,
      complete: detector.seen,
      outcome: record.outcome,
      promptFile: vscode.workspace.asRelativePath(promptUri, false),
      iteration,
      loopId,
    };
    await appendText(joinRelative(folder.uri, RUNS_FILE), serializeRun(line));
    this.log.info(`[runner] ${storyId}: ${record.outcome}, exit ${result.exitCode ?? '?'} (${result.via}), ${ended - started} ms`);
    this.onDidRecordEmitter.fire(folder);
    this.prds.refreshAll();
    return record;
  }

  private async prompt(folder: vscode.WorkspaceFolder, settings: RalphSettings, analysis: PrdAnalysis, storyId: string): Promise<string> {
    const [progressText, pinText] = await Promise.all([
      readText(joinRelative(folder.uri, settings.progressPath)),
      readText(joinRelative(folder.uri, settings.pinPath)),
    ]);
    let template: string | undefined;
    if (settings.promptTemplateFile) {
      template = await readText(joinRelative(folder.uri, settings.promptTemplateFile));
      if (template === undefined) {
        throw new RunError(`The prompt template "${settings.promptTemplateFile}" (setting ralph.prompt.templateFile) does not exist.`);
      }
    }
    // The builder reads specs synchronously: read every spec the Pin links first.
    const specs = new Map<string, string | undefined>();
    for (const mod of pinText ? parsePin(pinText).modules : []) {
      const rel = mod.spec?.replace(/^\.\//, '');
      if (rel && !specs.has(rel)) {
        specs.set(rel, await readText(joinRelative(folder.uri, rel)).catch(() => undefined));
      }
    }
    const issuePlan = await this.issuePlanFor?.(folder, storyId).catch(() => undefined);
    return buildPrompt({
      prd: analysis,
      storyId,
      progressText,
      pinText,
      template,
      issuePlan,
      readFile: (p) => specs.get(p),
      files: { prd: settings.prdPath, progress: settings.progressPath, pin: settings.pinPath },
    });
  }

  private async commandLine(folder: vscode.WorkspaceFolder, settings: RalphSettings, promptFile: string, storyId: string): Promise<string> {
    const shell: ShellKind = shellKindOf(vscode.env.shell || '') ?? (process.platform === 'win32' ? 'powershell' : 'posix');
    const preset = getPreset(settings.agentPreset);
    if (!preset) {
      throw new RunError(`Unknown agent preset "${settings.agentPreset}" in the setting ralph.agent.preset.`);
    }
    let template = settings.agentCommand;
    if (!template && preset.id === 'ralphSh') {
      const found = new Set<string>();
      for (const p of ['ralph.sh', 'scripts/ralph/ralph.sh']) {
        if (await exists(joinRelative(folder.uri, p))) {
          found.add(p);
        }
      }
      template = ralphShTemplate((p) => found.has(p)) ?? '';
      if (!template) {
        throw new RunError('The agent preset "ralphSh" needs a ralph.sh at the workspace root or in scripts/ralph/. Add one, or choose another agent in the setting ralph.agent.preset.');
      }
    }
    if (!template) {
      template = presetTemplate(preset, shell);
    }
    if (!template) {
      throw new RunError('The agent preset "custom" needs a command line in the setting ralph.agent.command, e.g. "my-agent --prompt ${promptFile}".');
    }
    const check = checkTemplate(template, shell);
    if (check.error) {
      throw new RunError(check.error);
    }
    let line: string;
    try {
      line = expandTemplate(template, { promptFile, storyId, workspaceFolder: folder.uri.fsPath }, shell);
    } catch (e) {
      throw new RunError(e instanceof TemplateError ? e.message : String(e));
    }
    const executable = commandExecutable(line);
    if (executable) {
      const fs = await import('node:fs');
      const found = resolveExecutable(executable, {
        path: process.env.PATH,
        pathExt: process.env.PATHEXT,
        platform: process.platform === 'win32' ? 'win32' : 'posix',
        cwd: folder.uri.fsPath,
        exists: (p) => {
          try {
            return fs.statSync(p).isFile();
          } catch {
            return false;
          }
        },
      });
      if (!found) {
        throw new RunError(missingExecutableMessage(executable, settings.agentCommand ? 'custom' : preset.id));
      }
    }
    return line;
  }

  /** With ralph.progress.autoCompact, compacts progress.txt before an iteration when it is over the threshold. */
  private async autoCompact(folder: vscode.WorkspaceFolder, settings: RalphSettings): Promise<void> {
    const c = vscode.workspace.getConfiguration('ralph', folder.uri);
    const uri = joinRelative(folder.uri, settings.progressPath);
    if (!c.get<boolean>('progress.autoCompact', false) || uri.scheme !== 'file') {
      return;
    }
    const bytes = await readBytes(uri);
    if (!bytes || vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString() && d.isDirty)) {
      return;
    }
    const plan = planCompaction(decodeText(bytes), {
      threshold: c.get<number>('progress.compactThreshold', 400),
      keepRecentLines: c.get<number>('progress.keepRecentLines', 200),
      now: new Date(),
    });
    if (plan.changed) {
      const done = applyCompaction(uri.fsPath, bytes, plan, new Date(), settings.progressPath);
      this.log.info(`[runner] auto-compaction: ${done.logLine}`);
    }
  }

  /**
   * When prd.json names another branch than the last run, copies the previous feature's prd.json
   * and progress.txt to `archive/<date>-<feature>/`; the caller then starts a fresh progress.txt.
   */
  private async archiveIfBranchChanged(
    folder: vscode.WorkspaceFolder,
    settings: RalphSettings,
    prd: PrdAnalysis,
  ): Promise<{ last: string; target: string; targetUri: vscode.Uri; createdUri: vscode.Uri } | undefined> {
    const last = parseLastBranch(await readText(joinRelative(folder.uri, LAST_BRANCH_FILE)));
    if (!last || !shouldArchive(last, prd.doc.branchName)) {
      return undefined;
    }
    const existing = new Set<string>();
    const archiveRoot = joinRelative(folder.uri, 'archive');
    const rootExisted = await exists(archiveRoot);
    for (const [name] of await vscode.workspace.fs.readDirectory(archiveRoot).then((e) => e, () => [] as [string, vscode.FileType][])) {
      existing.add(`archive/${name}`);
    }
    const target = archiveFolderName(new Date(), last, (f) => existing.has(f));
    const targetUri = joinRelative(folder.uri, target);
    await vscode.workspace.fs.createDirectory(targetUri);
    // The previous feature's prd.json is the snapshot taken after its last iteration, when there is one.
    const lastPrd = await readBytes(joinRelative(folder.uri, LAST_PRD_FILE));
    const prdBytes = lastPrd ?? (await readBytes(this.prds.prdUri(folder)));
    if (prdBytes) {
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(targetUri, 'prd.json'), prdBytes);
    }
    const progress = await readBytes(joinRelative(folder.uri, settings.progressPath));
    if (progress) {
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(targetUri, 'progress.txt'), progress);
    }
    // What to delete to undo it: the new folder, or archive/ itself when this made it.
    return { last, target, targetUri, createdUri: rootExisted ? targetUri : archiveRoot };
  }

  private setState(state: RunnerState): void {
    this.current = state;
    this.onDidChangeEmitter.fire(state);
  }
}
