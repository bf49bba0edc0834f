/**
 * The parallel loop in VS Code (issue 19): a thin face over the engine's ParallelRunner
 * (src/node/parallel/runner.ts), at most one per workspace folder. Each story's agent runs in a
 * terminal of its own (`Ralph: <id> — <title>`, cwd its worktree, the terminal executor); the
 * options come from the ralph.* settings; the views listen to `onDidChange`. The Needs You items
 * outlive the run that raised them, so Retry can start a new run of that story (its kept worktree
 * is re-attached by the runner).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { shellKindOf, type ShellKind } from '../../core/agents/presets';
import { workspaceProblems } from '../../core/loop/preflight';
import { planAgentCommand } from '../../core/loop/iteration';
import { bundledRenderStream } from '../run/bundledCli';
import type { NeedsYouItem, ParallelStop } from '../../core/loop/parallelLoop';
import { describeWait, shortWait } from '../../core/loop/waitReasons';
import { waitSentence } from '../../core/insights/waitText';
import type { NeedsYouRowWhy } from '../../core/parallel/needsYouRows';
import type { StopMode } from '../../core/loop/loop';
import type { AgentExecutor, AgentLaunch } from '../../core/loop/executor';
import { ParallelRunner, type RunnerEvent, type StoryStatus } from '../../node/parallel/runner';
import { git } from '../../node/parallel/git';
import { removeKeptWorktree } from '../../node/parallel/interrupted';
import { updateFromFeature } from '../../node/parallel/storyRun';
import { terminalLookup } from '../../node/programLookup';
import { Disposable } from '../../util/disposable';
import { readSettings, readTerminalEnv } from '../settings';
import { isTrusted } from '../trust';
import { RunError } from '../run/preparer';
import { ralphScripts } from '../../node/ralphScripts';
import { terminalExecutor } from '../run/terminalExecutor';

export interface ParallelStartOptions {
  /** Agent starts at most, across slots (default ralph.loop.maxIterations). */
  readonly maxIterations?: number;
  /** Agents at once (default ralph.parallel.maxAgents). */
  readonly maxAgents?: number;
  /** Only these stories (Run Wave: the ones ready now; Retry after the run: the one story). */
  readonly only?: readonly string[];
}

/** A Needs You item as the views show it, with what its actions need. */
export interface NeedsYouEntry extends Omit<NeedsYouItem, 'why'> {
  readonly why: NeedsYouRowWhy;
  readonly folder: vscode.WorkspaceFolder;
  /** Found in `.ralph/parallel.json` by a reopened window (src/services/parallel/interruptedRuns.ts), not raised by a run of this window. */
  readonly recovered?: boolean;
  /** The kept worktree's branch and its commits not on the feature branch (a recovered item). */
  readonly branch?: string;
  readonly commits?: readonly string[];
  /** The story's kept worktree, when known. */
  readonly worktree?: string;
  /** Its last agent run's log, relative to the folder (`.ralph/logs/<run>.log`). */
  readonly logFile?: string;
  /** The files its last merge conflicted in. */
  readonly conflictFiles?: readonly string[];
}

/** A story an agent works on now, in the shape the Stories view marks. */
export interface ParallelRunning {
  readonly folder: vscode.WorkspaceFolder;
  readonly storyId: string;
  readonly iteration: number;
  readonly maxIterations: number;
  readonly startedAt?: number;
}

/** What the Needs You actions need of a story, kept past its run. */
interface StoryTrail {
  readonly worktree?: string;
  readonly logFile?: string;
  readonly conflictFiles?: readonly string[];
}

interface FolderRun {
  readonly folder: vscode.WorkspaceFolder;
  readonly runner: ParallelRunner;
  readonly done: Promise<ParallelStop | undefined>;
  /** Per story: its last start (iteration, limit, log file). */
  readonly starts: Map<string, { iteration: number; maxIterations: number; logFile: string; worktree: string }>;
  /** Per story: the last wait for its agent's limit the runner announced (`waiting`). */
  readonly limits: Map<string, ParallelLimitWait>;
  stopRequested?: StopMode;
}

/** A parallel run waiting out an agent's limit, as the status bar and the notification show it. */
export interface ParallelLimitWait {
  readonly folder: vscode.WorkspaceFolder;
  readonly storyId: string;
  readonly agent: string;
  /** When its story runs again (ms since the epoch). */
  readonly until: number;
  readonly source: 'reset' | 'backoff';
}

export class ParallelService extends Disposable {
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<void>());
  /** A run started, a story started or ended, a Needs You item opened or closed, a run ended. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly active = new Map<string, FolderRun>();
  /** Per folder: the items a run left open after it ended (Retry then starts a new run). */
  private readonly leftOpen = new Map<string, NeedsYouEntry[]>();
  /** Per folder: the worktree and log of stories, kept past their run for Show Terminal / Open Worktree. */
  private readonly known = new Map<string, Map<string, StoryTrail>>();
  /** Per folder: the worktrees a run that did not end kept, until a run of that folder starts or they are removed. */
  private readonly recovered = new Map<string, NeedsYouEntry[]>();
  /** Per folder: stories the user skipped; their kept worktrees are not listed again until a run takes them up. */
  private readonly skipped = new Map<string, Set<string>>();
  /** Per worktree folder: the terminal its agent runs in. */
  private readonly terminals = new Map<string, vscode.Terminal>();

  constructor(private readonly log: vscode.LogOutputChannel) {
    super();
  }

  /**
   * Stop This Agent: ends the agent of one story of this folder's parallel run; the story then
   * needs the user (Retry, Skip Story) while the run goes on. False when no agent of the run works on it.
   */
  async stopAgent(folder: vscode.WorkspaceFolder, storyId: string): Promise<boolean> {
    const r = this.active.get(folder.uri.toString());
    return r ? r.runner.stopAgent(storyId) : false;
  }

  /** Whether a parallel run is under way in this folder (every folder when none is named). */
  isRunning(folder?: vscode.WorkspaceFolder): boolean {
    return folder ? this.active.has(folder.uri.toString()) : this.active.size > 0;
  }

  /**
   * Runs a parallel loop; resolves with how it stopped. When it cannot start (Restricted Mode, not
   * a git repository, a dirty tree, a detached HEAD, another run holds the workspace) it throws a
   * RunError or ParallelError naming what to do, before anything changed.
   */
  async start(folder: vscode.WorkspaceFolder, options: ParallelStartOptions = {}): Promise<ParallelStop> {
    const [refused] = workspaceProblems({ trusted: isTrusted(), scheme: folder.uri.scheme, folderName: folder.name });
    if (refused) {
      throw new RunError(refused.message);
    }
    const key = folder.uri.toString();
    // The serial runner is refused by the workspace run lock both take (src/node/parallel/runLock.ts).
    if (this.active.has(key)) {
      throw new RunError(`A parallel run is already under way in ${folder.name}: stop it first; one run per folder at a time.`);
    }
    const s = readSettings(folder.uri);
    const root = folder.uri.fsPath;
    const shell: ShellKind = shellKindOf(vscode.env.shell || '') ?? (process.platform === 'win32' ? 'powershell' : 'posix');
    const scripts = ralphScripts(root);
    const lookup = terminalLookup(readTerminalEnv(folder.uri));
    const starts: FolderRun['starts'] = new Map();
    const limits: FolderRun['limits'] = new Map();
    const runner = new ParallelRunner(
      root,
      {
        config: {
          maxAgents: options.maxAgents ?? s.parallelMaxAgents,
          maxIterations: options.maxIterations ?? s.maxIterations,
          failureLimit: s.failureLimit,
          noProgressLimit: s.noProgressLimit,
          allowOverlap: s.parallelAllowOverlap,
          maxLimitedInARow: s.agentMaxLimitedInARow,
        },
        mergeMode: s.parallelMerge,
        checkCommand: s.parallelCheckCommand.trim() || undefined,
        worktreeRoot: s.parallelWorktreeRoot.trim() ? path.resolve(root, s.parallelWorktreeRoot) : undefined,
        runTimeoutMs: s.parallelRunTimeoutMinutes * 60_000,
        files: { prd: s.prdPath, progress: s.progressPath, pin: s.pinPath, template: s.promptTemplateFile },
        holder: 'VS Code',
        only: options.only,
        manageBranch: s.manageBranch,
        budget: s.budget,
        // a command line of the user's own has no presets to fall back on
        fallback: s.agentCommand.trim() === '' ? s.agentFallback : [],
      },
      {
        executor: this.executor(),
        planAgent: (req) =>
          planAgentCommand({
            // a fallback preset runs as the preset it is (ralph.agent.fallback)
            presetId: req.presetId ?? s.agentPreset,
            command: req.presetId !== undefined ? '' : s.agentCommand,
            shell,
            exists: (p) => scripts.has(p),
            vars: { promptFile: req.promptPath, storyId: req.storyId, workspaceFolder: req.cwd },
            lookup,
            renderStream: bundledRenderStream(),
          }),
        onEvent: (e) => this.onEvent(folder, { starts, limits }, e),
      },
    );
    // Items of an earlier run of the stories this run takes up are its to raise again.
    this.leftOpen.set(key, (this.leftOpen.get(key) ?? []).filter((i) => options.only !== undefined && !options.only.includes(i.storyId)));
    // The runner resumes what the state file says; its items replace the recovered ones.
    this.recovered.delete(key);
    const skipped = this.skipped.get(key);
    for (const id of options.only ?? [...(skipped ?? [])]) {
      skipped?.delete(id);
    }
    const done = runner.run();
    this.active.set(key, { folder, runner, starts, limits, done: done.catch(() => undefined) });
    this.onDidChangeEmitter.fire();
    try {
      const stop = await done;
      this.log.info(`[parallel] ${folder.name}: ${stop.message}`);
      this.leftOpen.set(key, [...(this.leftOpen.get(key) ?? []), ...stop.needsYou.map((i) => this.entryOf(folder, i))]);
      return stop;
    } finally {
      this.active.delete(key);
      this.onDidChangeEmitter.fire();
    }
  }

  /**
   * Resume Now: ends the parallel runs' waits for an agent's limit; false when none waits. Like
   * every start of an agent, refused in Restricted Mode (the command's registrar refuses first).
   */
  resumeNow(): boolean {
    if (!isTrusted()) {
      return false;
    }
    const ended = [...this.active.values()].map((r) => r.runner.resumeNow()).some((e) => e);
    if (ended) {
      this.onDidChangeEmitter.fire();
    }
    return ended;
  }

  /**
   * The wait for an agent's limit a parallel run is in now (the latest reset, when several agents
   * hit theirs), or undefined. The loop's own word decides whether it still waits (its held-back
   * stories wait with reason `rate-limited`), so a wait that ended (its time came, Resume Now, a
   * stop) is never shown, whether or not an event said so yet.
   */
  limitWait(): ParallelLimitWait | undefined {
    let latest: ParallelLimitWait | undefined;
    for (const w of this.limitWaits()) {
      latest = !latest || w.until > latest.until ? w : latest;
    }
    return latest;
  }

  /** Every story waiting out its agent's limit now (the Task Graph counts each one down on its mark). */
  limitWaits(): ParallelLimitWait[] {
    const waits: ParallelLimitWait[] = [];
    for (const r of this.active.values()) {
      if (!r.stopRequested && r.runner.waits.some((w) => w.reason.kind === 'rate-limited')) {
        waits.push(...r.limits.values());
      }
    }
    return waits;
  }

  /** Stop All (`now`: end the agents) or Stop After This Iteration; false when no parallel run is under way. */
  requestStop(mode: StopMode, folder?: vscode.WorkspaceFolder): boolean {
    const runs = [...this.active.values()].filter((r) => !folder || r.folder.uri.toString() === folder.uri.toString());
    for (const r of runs) {
      r.stopRequested = mode;
      r.runner.requestStop(mode);
    }
    if (runs.length > 0) {
      this.onDidChangeEmitter.fire();
    }
    return runs.length > 0;
  }

  /** Resolves when every parallel run has ended. */
  async whenStopped(): Promise<void> {
    await Promise.all([...this.active.values()].map((r) => r.done));
  }

  /** The open Needs You items, of running and of ended runs, in folder order. */
  needsYou(): NeedsYouEntry[] {
    const out: NeedsYouEntry[] = [];
    const folders = new Set([...this.active.keys(), ...this.leftOpen.keys(), ...this.recovered.keys()]);
    for (const key of folders) {
      const r = this.active.get(key);
      if (r) {
        out.push(...r.runner.needsYou.map((i) => this.entryOf(r.folder, i)));
      }
      const left = this.leftOpen.get(key) ?? [];
      out.push(...left);
      // A story this window's run raised an item for is listed once, with that item.
      out.push(...(this.recovered.get(key) ?? []).filter((k) => !left.some((i) => i.storyId === k.storyId)));
    }
    return out;
  }

  /** The worktrees a run that did not end kept in this folder (none: the list is cleared). */
  setRecovered(folder: vscode.WorkspaceFolder, entries: readonly NeedsYouEntry[]): void {
    const key = folder.uri.toString();
    const skipped = this.skipped.get(key);
    const listed = entries.filter((e) => !skipped?.has(e.storyId));
    if (listed.length === 0 && !this.recovered.has(key)) {
      return;
    }
    if (listed.length > 0) {
      this.recovered.set(key, listed);
    } else {
      this.recovered.delete(key);
    }
    this.onDidChangeEmitter.fire();
  }

  /**
   * Remove Worktree on a recovered item: only when the feature branch holds every commit of it
   * (src/node/parallel/interrupted.ts refuses otherwise, saying how many would be lost).
   */
  async removeKept(item: NeedsYouEntry): Promise<void> {
    if (!item.recovered || !item.worktree || !item.branch) {
      throw new RunError(`${item.storyId}'s worktree belongs to a run of this window: Retry or Skip it instead.`);
    }
    if (this.isRunning(item.folder)) {
      throw new RunError(`A parallel run is under way in ${item.folder.name}: remove worktrees once it has ended.`);
    }
    await removeKeptWorktree(item.folder.uri.fsPath, { storyId: item.storyId, worktree: item.worktree, branch: item.branch });
    const key = item.folder.uri.toString();
    this.setRecovered(item.folder, (this.recovered.get(key) ?? []).filter((e) => e.worktree !== item.worktree));
  }

  /** Why each ready story a run has not started waits ("waits for US-004: both change src/api/tasks.ts"). */
  get waits(): { readonly folder: vscode.WorkspaceFolder; readonly storyId: string; readonly short: string; readonly text: string }[] {
    return [...this.active.values()].flatMap((r) => r.runner.waits.map((w) => ({ folder: r.folder, storyId: w.storyId, short: shortWait(w.reason), text: describeWait(w.reason) })));
  }

  /** The stories agents work on now. */
  get runs(): ParallelRunning[] {
    const out: ParallelRunning[] = [];
    for (const r of this.active.values()) {
      for (const st of r.runner.stories().filter((x: StoryStatus) => x.phase === 'running' && x.runId !== undefined)) {
        const start = r.starts.get(st.storyId);
        out.push({ folder: r.folder, storyId: st.storyId, iteration: st.iteration ?? start?.iteration ?? 1, maxIterations: start?.maxIterations ?? 1, startedAt: st.startedAt });
      }
    }
    return out;
  }

  /**
   * Retry on an item: while its run is alive the runner takes it up again; after the run ended, a
   * new run of that story alone (its kept worktree is re-attached). Resolves when that is decided
   * (the new run goes on in the background; its end is `done`).
   */
  retry(item: NeedsYouEntry): { retried: boolean; done?: Promise<ParallelStop | undefined> } {
    const r = this.active.get(item.folder.uri.toString());
    if (r) {
      return { retried: r.runner.retry(item.storyId) };
    }
    const done = this.start(item.folder, { only: [item.storyId], maxIterations: 1, maxAgents: 1 });
    return { retried: true, done };
  }

  /** Skip Story on an item: the run goes on without it; after the run, the item is dropped. */
  skip(item: NeedsYouEntry): boolean {
    const key = item.folder.uri.toString();
    const r = this.active.get(key);
    if (r && r.runner.skip(item.storyId)) {
      this.onDidChangeEmitter.fire();
      return true;
    }
    const left = this.leftOpen.get(key) ?? [];
    const rest = left.filter((i) => i.storyId !== item.storyId);
    this.leftOpen.set(key, rest);
    const kept = this.recovered.get(key) ?? [];
    const keptRest = kept.filter((i) => i.storyId !== item.storyId);
    this.recovered.set(key, keptRest);
    this.skipped.set(key, new Set([...(this.skipped.get(key) ?? []), item.storyId]));
    this.onDidChangeEmitter.fire();
    return rest.length < left.length || keptRest.length < kept.length;
  }

  /** The terminal of a story's agent, while it is open. */
  terminalOf(item: NeedsYouEntry): vscode.Terminal | undefined {
    return this.openTerminal(item.worktree);
  }

  /** The terminal of the agent that works (or last worked) on a story of a folder, while it is open (the Task Graph's mark). */
  terminalOfStory(folder: vscode.Uri, storyId: string): vscode.Terminal | undefined {
    return this.openTerminal(this.known.get(folder.toString())?.get(storyId)?.worktree);
  }

  private openTerminal(worktree: string | undefined): vscode.Terminal | undefined {
    const t = worktree ? this.terminals.get(worktree) : undefined;
    return t && vscode.window.terminals.includes(t) ? t : undefined;
  }

  /**
   * The conflicted files of an item, as absolute paths in its worktree: the feature branch is
   * merged into the worktree first (unless a merge is under way there already), so the conflict
   * markers are where the user resolves them; then commit and Retry.
   */
  async openConflict(item: NeedsYouEntry): Promise<string[]> {
    const wt = item.worktree;
    if (!wt) {
      throw new RunError(`${item.storyId} has no worktree this window knows of: run it again to re-attach its kept worktree.`);
    }
    const merging = (await git(wt, ['rev-parse', '-q', '--verify', 'MERGE_HEAD'])).code === 0;
    const s = readSettings(item.folder.uri);
    let files: readonly string[];
    if (merging) {
      files = (await git(wt, ['diff', '--name-only', '--diff-filter=U', '-z'])).stdout.split('\0').filter((f) => f !== '');
    } else {
      const feature = (await git(item.folder.uri.fsPath, ['rev-parse', '--abbrev-ref', 'HEAD'])).stdout.trim();
      const branch = (await git(wt, ['rev-parse', '--abbrev-ref', 'HEAD'])).stdout.trim();
      // prd.json and progress.txt come out settled by the queue's rules: only the code is left to resolve.
      files = (await updateFromFeature({ storyId: item.storyId, branch, folder: wt, base: '' }, feature, { prd: s.prdPath, progress: s.progressPath })).files;
    }
    // A merge under way from before: prd.json and progress.txt never go through git's text merge
    // (the merge queue merges them by its own rules), so the worktree keeps the story's side.

    const memory = files.filter((f) => f === s.prdPath || f === s.progressPath);
    if (memory.length > 0) {
      await git(wt, ['checkout', '--ours', '--', ...memory]);
      await git(wt, ['add', '--', ...memory]);
    }
    const code = files.filter((f) => !memory.includes(f));
    return (code.length > 0 ? code : (item.conflictFiles ?? [])).map((f) => path.join(wt, f));
  }

  /** The terminal executor, remembering each worktree's terminal (Show Terminal). */
  private executor(): AgentExecutor {
    return {
      start: (launch: AgentLaunch) => {
        const run = terminalExecutor.start(launch);
        this.terminals.set(launch.cwd, run.terminal);
        return run;
      },
    };
  }

  private entryOf(folder: vscode.WorkspaceFolder, item: NeedsYouItem): NeedsYouEntry {
    const k = this.known.get(folder.uri.toString())?.get(item.storyId);
    return { ...item, folder, worktree: k?.worktree, logFile: k?.logFile, conflictFiles: k?.conflictFiles };
  }

  private onEvent(folder: vscode.WorkspaceFolder, run: Pick<FolderRun, 'starts' | 'limits'>, e: RunnerEvent): void {
    const { starts, limits } = run;
    const key = folder.uri.toString();
    const known = this.known.get(key) ?? new Map<string, StoryTrail>();
    this.known.set(key, known);
    if (e.kind === 'waiting') {
      limits.set(e.storyId, { folder, storyId: e.storyId, agent: e.agent, until: e.until, source: e.source });
    }
    if (e.kind === 'started') {
      // Its agent runs again: the wait for its limit is over.
      limits.delete(e.storyId);
      starts.set(e.storyId, { iteration: e.iteration, maxIterations: e.maxIterations, logFile: e.logFile, worktree: e.worktree.folder });
      known.set(e.storyId, { worktree: e.worktree.folder, logFile: e.logFile });
    } else if (e.kind === 'merged') {
      known.set(e.storyId, { ...known.get(e.storyId), conflictFiles: e.conflictFiles });
    }
    if (e.kind === 'stopped') {
      return; // start() reports the end, after the items are kept
    }
    const line = parallelLogLine(e);
    if (line) {
      this.log.info(`[parallel] ${line}`);
    }
    this.onDidChangeEmitter.fire();
  }
}

function parallelLogLine(e: RunnerEvent): string | undefined {
  switch (e.kind) {
    case 'started':
      return `${e.storyId}: started (${e.iteration}/${e.maxIterations}) in ${e.worktree.folder} on ${e.worktree.branch}; log ${e.logFile}`;
    case 'agentEnded':
      return `${e.storyId}: agent ended — ${e.outcome}${e.message ? `: ${e.message}` : ''}`;
    case 'merged':
      return `${e.storyId}: ${e.result}${e.message ? ` — ${e.message}` : ''}`;
    case 'needsYou':
      return e.item.message;
    case 'note':
      return e.message;
    case 'waiting':
      return `${e.storyId}: ${waitSentence(e.agent, e.until, Date.now(), new Date(e.until).toLocaleTimeString(), e.source)}`;
    default:
      return undefined;
  }
}
