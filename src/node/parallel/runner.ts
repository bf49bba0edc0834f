/**
 * The parallel runner (issue 19): the pure loop (src/core/loop/parallelLoop.ts) driven with real
 * work, the same for the headless CLI (`ralph-workbench run`) and the extension. It takes the
 * workspace's run lock, resumes what a crashed run left (resume.ts), then feeds the loop the
 * events of its agents (storyRun.ts, each in its own worktree) and of the merge queue
 * (mergeQueue.ts), and carries out the loop's commands: start a story, merge one, end an agent,
 * raise a Needs You item, stop. Each agent run becomes one runs.jsonl line, written when the fate
 * of its work is known (merged, conflicted, failed its check, or not finished).
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { errorMessage } from '../../core/errorMessage';
import type { Budget } from '../../core/insights/budget';
import { spendOf } from '../../core/insights/receipts';
import { ParallelLoop, type ParallelCommand, type ParallelEvent, type NeedsYouItem, type ParallelStop } from '../../core/loop/parallelLoop';
import type { ParallelConfig } from '../../core/loop/parallelPlan';
import { predictAll } from '../../core/loop/sameFile';
import type { StopMode } from '../../core/loop/loop';
import type { MergeMode, ParallelState } from '../../core/parallel/state';
import { analyzePrd, type PrdAnalysis } from '../../core/prd/index';
import type { MergeResult, RunRecord } from '../../core/runs/runs';
import { recordIteration } from '../runRecorder';
import { git, ParallelError, topOf } from './git';
import { LimitWaits } from './limitWaits';
import { MergeQueue } from './mergeQueue';
import { mergedLeftovers, resumeParallel } from './resume';
import { readPredictionInputs } from './predictionInputs';
import { acquireRunLock } from './runLock';
import { ParallelStateStore } from './stateFile';
import { finishedInWorktree, type MemoryPaths, runLine, StoryRun, type StoryRunContext, updateFromFeature } from './storyRun';
import { SpareWorktrees } from './spares';
import { forgetMergeScratch } from './treeMerge';
import { type AddOptions, addWorktree, checkOutPrdBranch, defaultWorktreeRoot, existingStoryWorktree, preflight, prepareRalphFolder, removeWorktree, type RepoInfo, type StoryWorktree } from './worktrees';

export interface ParallelRunOptions {
  readonly config: Partial<ParallelConfig>;
  /** Cost and token caps (ralph.budget.*, the CLI's --max-cost / --max-tokens). */
  readonly budget?: Budget;
  readonly mergeMode: MergeMode;
  /** Run in the main tree after each merge; a failure undoes the merge. */
  readonly checkCommand?: string;
  readonly checkTimeoutMs?: number;
  /** The parent folder of the worktrees (default `<repo>/../.<repo>-ralph-worktrees`). */
  readonly worktreeRoot?: string;
  /** Per agent run (0: no limit). */
  readonly runTimeoutMs: number;
  readonly files: MemoryPaths;
  /** Who holds the run lock, for the message of a run refused meanwhile ("the CLI", "VS Code"). */
  readonly holder: string;
  /** Only these stories (`--story`): the others are not started. */
  readonly only?: readonly string[];
  /**
   * ralph.git.manageBranch: before anything else, check out prd.json's `branchName` (created from
   * the default branch when missing), as the serial loop does; the run then works on that branch.
   */
  readonly manageBranch?: boolean;
  /** ralph.agent.fallback: presets to run, in this order, while the configured agent is limited (limitWaits.ts). */
  readonly fallback?: readonly string[];
}

import type { ParallelRunPorts, RunnerEvent, StoryStatus } from './runnerTypes';
export type { ParallelRunPorts, RunnerEvent, StoryStatus };

interface PendingLine {
  readonly line: RunRecord;
  readonly wave: number;
}

export class ParallelRunner {
  readonly loopId: string;
  private loop: ParallelLoop | undefined;
  private repo: RepoInfo | undefined;
  private queue: MergeQueue | undefined;
  private prd: PrdAnalysis | undefined;
  private readonly worktrees = new Map<string, StoryWorktree>();
  private readonly runs = new Map<string, { run: StoryRun; runId: string; started: number; iteration: number }>();
  /** What the last try of a story ended with, for its retry. */
  private readonly lastTrouble = new Map<string, { why: 'conflict' | 'check-failed'; detail: string }>();
  private readonly pendingLines = new Map<string, PendingLine>();
  private readonly work = new Set<Promise<unknown>>();
  private readonly attempts = new Map<string, number>();
  private readonly limitWaits: LimitWaits;
  /** Stories asked to stop while their agent was still being prepared (no run to stop yet). */
  private readonly stopBeforeStart = new Set<string>();
  private finished: ((stop: ParallelStop) => void) | undefined;
  private pendingStop: StopMode | undefined;
  private removals: Promise<void> = Promise.resolve();
  /** Worktrees of merged stories, for the next stories to reuse (a slot's worth at most). */
  private readonly spares = new SpareWorktrees(() => this.loop?.config.maxAgents ?? 1);
  /** Changes to the worktree list (add, reuse, remove, prune) happen one at a time; so do merges into the main tree. */
  private worktreeChain: Promise<unknown> = Promise.resolve();
  private mergeChain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly root: string,
    private readonly options: ParallelRunOptions,
    private readonly ports: ParallelRunPorts,
  ) {
    this.limitWaits = new LimitWaits(ports.clock, options.fallback, () => this.now().getTime());
    this.loopId = `parallel-${this.now().toISOString().replace(/[:.]/g, '-')}`;
  }

  private now(): Date {
    return this.ports.now?.() ?? new Date();
  }

  private emit(event: RunnerEvent): void {
    try {
      this.ports.onEvent?.(event);
    } catch {
      // A listener's failure is not the run's.
    }
  }

  /**
   * Runs the loop to its end. Throws a ParallelError when it cannot start (not a repository, a
   * dirty tree, another run holds the workspace, a damaged state file); everything after that ends
   * in the returned stop, with its Needs You items.
   */
  async run(): Promise<ParallelStop> {
    // The run's files (the lock, the queue state, logs, runs.jsonl) ignore themselves: a repository
    // that does not ignore .ralph/ must not show them as changes.
    // They live in the repository's top folder, which the workspace folder may be below.
    const top = (await topOf(this.root)) ?? this.root;
    await prepareRalphFolder(this.root);
    if (top !== this.root) {
      await prepareRalphFolder(top);
    }
    const lock = await acquireRunLock(this.root, this.options.holder);
    try {
      return await this.runLocked();
    } finally {
      await Promise.allSettled([...this.work]);
      if (this.repo) {
        await forgetMergeScratch(this.repo.root);
      }
      await lock.release();
    }
  }

  private async runLocked(): Promise<ParallelStop> {
    const top = (await topOf(this.root)) ?? this.root;
    const store = new ParallelStateStore(top);
    const state = await store.read();
    if (this.options.manageBranch) {
      const checkedOut = await checkOutPrdBranch(top, this.options.files.prd);
      if (checkedOut) {
        this.emit({ kind: 'note', message: checkedOut });
      }
    }
    const queueOptions = { mode: this.options.mergeMode, checkCommand: this.options.checkCommand || undefined, checkTimeoutMs: this.options.checkTimeoutMs, prdPath: this.options.files.prd, progressPath: this.options.files.progress };
    if (state && (state.stories.some((s) => s.state !== 'merged') || (await mergedLeftovers(top, state)))) {
      const report = await resumeParallel(top, { ...queueOptions, worktreeRoot: this.options.worktreeRoot });
      this.emit({ kind: 'resumed', report });
    }
    this.repo = await preflight(top);
    // Merged worktrees are removed by the runner after the loop has heard of the merge, off the
    // critical path: the next story that waited on this one starts without waiting for it.
    this.queue = new MergeQueue(this.repo, store, { ...queueOptions, removeMerged: false, now: () => this.now() });
    await this.adoptKept(await store.read());
    this.prd = await this.readPrd();
    const stories = this.prd?.doc.stories ?? [];
    const unknown = this.prd?.readable ? (this.options.only ?? []).filter((id) => !stories.some((s) => s.id === id)) : [];
    if (unknown.length > 0) {
      throw new ParallelError('state', `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in ${this.options.files.prd} (any more). Nothing was run.`);
    }
    const predictions = predictAll(stories, await readPredictionInputs((this.repo as RepoInfo).root, this.options.files));
    this.loop = new ParallelLoop(this.prd, {
      config: this.options.config,
      predictions,
      prdLabel: this.options.files.prd,
      memoryFiles: [this.options.files.prd, this.options.files.progress],
      only: this.options.only,
      budget: this.options.budget,
    });
    const done = new Promise<ParallelStop>((resolve) => (this.finished = resolve));
    this.dispatch(this.loop.begin());
    if (this.pendingStop) {
      this.post({ kind: 'stopRequested', mode: this.pendingStop });
    }
    return done;
  }

  /** Stop All: `after-iteration` lets running agents finish (their work merges), `now` ends them. */
  requestStop(mode: StopMode): void {
    if (!this.loop) {
      this.pendingStop = mode;
      return;
    }
    this.post({ kind: 'stopRequested', mode });
    this.limitWaits.endAll();
  }

  /** Resume Now: ends the wait for an agent's limit; the story runs again at once. False when none waits. */
  resumeNow(): boolean {
    return this.limitWaits.endAll();
  }

  /** Waits out an agent's limit (limitWaits.ts), then tells the loop. */
  private async waitOutLimit(storyId: string, inARow: number): Promise<void> {
    await this.limitWaits.waitOut(storyId, inARow, this.loop?.status.stopRequested !== undefined, (e) => this.emit(e));
    this.post({ kind: 'limitEnded' });
  }

  /** Stop This Agent: ends one story's agent; the story then needs the user (the loop goes on). */
  async stopAgent(storyId: string): Promise<boolean> {
    if (this.loop?.phaseOf(storyId) !== 'running') {
      return false;
    }
    await this.stopStory(storyId);
    return true;
  }

  private async stopStory(storyId: string): Promise<void> {
    const r = this.runs.get(storyId);
    if (r) {
      await r.run.stop();
    } else {
      this.stopBeforeStart.add(storyId);
    }
  }

  /** Retry on a Needs You item. */
  retry(storyId: string): boolean {
    if (this.loop?.phaseOf(storyId) !== 'needs-you') {
      return false;
    }
    this.post({ kind: 'retry', storyId });
    return true;
  }

  /** Skip Story on a Needs You item (or a story that has not started). */
  skip(storyId: string): boolean {
    const phase = this.loop?.phaseOf(storyId);
    if (phase !== 'pending' && phase !== 'needs-you') {
      return false;
    }
    this.post({ kind: 'skip', storyId });
    return true;
  }

  get needsYou(): readonly NeedsYouItem[] {
    return this.loop?.needsYou ?? [];
  }

  /** Every story of the loop with its phase, running ones with their run. */
  stories(): StoryStatus[] {
    const loop = this.loop;
    if (!loop || !this.prd) {
      return [];
    }
    return this.prd.doc.stories.map((s) => {
      const r = this.runs.get(s.id);
      return { storyId: s.id, phase: loop.phaseOf(s.id) ?? 'pending', worktree: this.worktrees.get(s.id), ...(r ? { runId: r.runId, startedAt: r.started, iteration: r.iteration } : {}) };
    });
  }

  get waits(): ParallelLoop['waits'] {
    return this.loop?.waits ?? [];
  }

  get worktreeRoot(): string {
    return this.options.worktreeRoot ?? defaultWorktreeRoot(this.repo?.root ?? this.root);
  }

  /** Feeds the loop one event and carries out what it answers (an event that does not fit changes nothing). */
  private post(event: ParallelEvent): void {
    if (this.loop) {
      this.dispatch(this.loop.handle(event));
    }
  }

  /** Keeps `p` for the run's end; a failure in it is said as a note, never left an unhandled rejection. */
  private track(p: Promise<unknown>): void {
    this.work.add(p);
    p.then(
      () => this.work.delete(p),
      (e: unknown) => {
        this.work.delete(p);
        this.emit({ kind: 'note', message: errorMessage(e) });
      },
    );
  }

  private dispatch(commands: readonly ParallelCommand[]): void {
    // Starts first (changes to the repository go one at a time): its agent works while the next story merges.
    for (const c of [...commands.filter((x) => x.kind === 'start'), ...commands.filter((x) => x.kind !== 'start')]) {
      switch (c.kind) {
        case 'start':
          this.track(this.startSafely(c));
          break;
        case 'merge':
          this.track(this.merge(c.storyId));
          break;
        case 'stopAgent':
          this.track(this.stopStory(c.storyId));
          break;
        case 'needsYou':
          this.emit({ kind: 'needsYou', item: c.item });
          break;
        case 'limitWait':
          this.track(this.waitOutLimit(c.storyId, c.inARow));
          break;
        case 'stop':
          this.track(this.end(c));
          break;
      }
    }
  }

  private async end(stop: ParallelStop): Promise<void> {
    // a wait the limit breaker left behind holds nothing up any more
    this.limitWaits.endAll();
    for (const spare of this.spares.drain()) {
      this.removeLater(spare);
    }
    await this.removals;
    // Every line of this loop is on disk before the run says it is over.
    for (const [storyId, p] of this.pendingLines) {
      await this.writeLine(p.line, p.wave, undefined, storyId);
    }
    this.pendingLines.clear();
    this.emit({ kind: 'stopped', stop });
    this.finished?.(stop);
  }

  private waveOf(storyId: string): number {
    const prd = this.prd;
    const i = prd?.doc.stories.findIndex((s) => s.id === storyId) ?? -1;
    return prd && i >= 0 ? Math.max(0, prd.readiness.schedule.wave[i]) : 0;
  }

  /** A start that throws (an executor that cannot start, a worktree that vanished) ends that agent as an error: the loop hears of it. */
  private async startSafely(c: Extract<ParallelCommand, { kind: 'start' }>): Promise<void> {
    try {
      await this.start(c);
    } catch (e) {
      this.runs.delete(c.storyId);
      this.post({ kind: 'agentEnded', storyId: c.storyId, outcome: 'error', message: errorMessage(e) });
    }
  }

  private async start(c: Extract<ParallelCommand, { kind: 'start' }>): Promise<void> {
    const repo = this.repo as RepoInfo;
    const id = c.storyId;
    const attempt = (this.attempts.get(id) ?? 0) + 1;
    this.attempts.set(id, attempt);
    const runId = `${this.loopId}-${id.replace(/[^A-Za-z0-9._-]/g, '_')}-${attempt}`;
    let wt = this.worktrees.get(id);
    const trouble = this.lastTrouble.get(id);
    this.lastTrouble.delete(id);
    /** Made for this start (reused or added): it cannot hold the story finished already. */
    let fresh = false;
    try {
      if (!wt) {
        wt = await this.onWorktrees(async () => {
          const { wt: found, absent } = await this.existingWorktree(id);
          fresh = !found;
          const options = { worktreeRoot: this.options.worktreeRoot, branchIsNew: absent, later: (work: Promise<unknown>) => this.track(work) };
          return found ?? (await this.reuseSpare(id, options)) ?? (await addWorktree(repo, id, options));
        });
        this.worktrees.set(id, wt);
      } else if (trouble?.why === 'conflict') {
        const update = await updateFromFeature(wt, repo.featureBranch, this.options.files);
        wt = update.worktree;
        this.worktrees.set(id, wt);
        const files = update.files;
        if (files.length > 0) {
          await (this.queue as MergeQueue).record(wt, 'conflict', { conflicts: [...files] });
          this.post({ kind: 'agentEnded', storyId: id, outcome: 'error', message: `merging ${repo.featureBranch} into its worktree conflicts in ${files.join(', ')}: resolve them in ${wt.folder}, commit, then Retry` });
          return;
        }
      }
      await (this.queue as MergeQueue).record(wt, 'running');
    } catch (e) {
      this.post({ kind: 'agentEnded', storyId: id, outcome: 'error', message: errorMessage(e) });
      return;
    }
    // A kept worktree that already holds the finished story (resumed, or resolved by the user) merges as it is.
    if (!fresh && trouble?.why !== 'check-failed' && (await finishedInWorktree(wt, this.options.files.prd))) {
      this.emit({ kind: 'note', storyId: id, message: `${id}: its worktree already holds the finished story; it merges without running the agent again.` });
      this.post({ kind: 'agentEnded', storyId: id, outcome: 'passed' });
      return;
    }
    const wave = this.waveOf(id);
    let presetId: string | undefined;
    const ctx: StoryRunContext = {
      root: repo.root,
      files: this.options.files,
      executor: this.ports.executor,
      planAgent: (r) => {
        // while the configured agent is limited, the first fallback preset that is not
        presetId = this.limitWaits.presetFor();
        return this.ports.planAgent(presetId === undefined ? r : { ...r, presetId });
      },
      issuePlanFor: this.ports.issuePlanFor?.bind(this.ports),
      timeoutMs: this.options.runTimeoutMs,
      now: () => this.now(),
      writeFile: this.ports.writeFile,
    };
    const extraPrompt =
      trouble?.why === 'check-failed'
        ? `## The check failed after your last merge\nYour work on ${id} merged, then the check command \`${this.options.checkCommand ?? ''}\` failed, so the merge was undone. Its output ended with:\n\n\`\`\`\n${trouble.detail.slice(-1500)}\n\`\`\`\n\nFix what makes it fail, commit with a "feat: ${id} - …" message, and keep the story passing.`
        : undefined;
    if (this.stopBeforeStart.delete(id)) {
      await (this.queue as MergeQueue).record(wt, 'interrupted', { note: 'stopped before its agent started' }).catch(() => undefined);
      this.post({ kind: 'agentEnded', storyId: id, outcome: 'stopped' });
      return;
    }
    const run = new StoryRun(ctx, { runId, storyId: id, storyTitle: c.storyTitle, worktree: wt, extraPrompt });
    const started = this.now().getTime();
    this.runs.set(id, { run, runId, started, iteration: c.iteration });
    this.emit({ kind: 'started', storyId: id, storyTitle: c.storyTitle, iteration: c.iteration, maxIterations: c.maxIterations, runId, worktree: wt, logFile: `.ralph/logs/${runId}.log`, wave });
    const result = await run.result;
    this.runs.delete(id);
    const line = runLine(result, { ...c, loopId: this.loopId, passing: this.prd?.readiness.counts.done ?? 0, wave }, wt);
    this.limitWaits.ended(id, result, presetId);
    this.emit({ kind: 'agentEnded', storyId: id, runId, outcome: result.outcome, exitCode: result.exit?.exitCode ?? null, durationMs: result.ended.getTime() - result.started.getTime(), message: result.message });
    if (result.outcome === 'passed') {
      // Its line waits for the merge's outcome.
      this.pendingLines.set(id, { line, wave });
      await (this.queue as MergeQueue).record(wt, 'done').catch(() => undefined);
    } else {
      await (this.queue as MergeQueue).record(wt, 'interrupted', { note: result.message }).catch(() => undefined);
      await this.writeLine(line, wave, undefined, id);
    }
    this.post({ kind: 'agentEnded', storyId: id, outcome: result.outcome, message: result.message, filesChanged: result.filesChanged, spent: spendOf(result.receipt), resetAt: result.limit?.resetAt });
  }


  private async writeLine(line: RunRecord, wave: number, merge: { result: MergeResult; commit?: string } | undefined, storyId: string): Promise<void> {
    const wt = this.worktrees.get(storyId);
    const parallel = { wave, worktree: line.parallel?.worktree ?? wt?.folder ?? '', branch: line.parallel?.branch ?? wt?.branch ?? '', ...(merge ? { merge: merge.result, ...(merge.commit ? { mergeCommit: merge.commit } : {}) } : {}) };
    try {
      await recordIteration(this.repo?.root ?? this.root, { ...line, parallel }, undefined);
    } catch (e) {
      this.emit({ kind: 'note', storyId, message: `${storyId}: its run could not be recorded in .ralph/runs.jsonl (${errorMessage(e)}).` });
    }
  }

  private async merge(storyId: string): Promise<void> {
    const wt = this.worktrees.get(storyId);
    const queue = this.queue as MergeQueue;
    this.emit({ kind: 'merging', storyId });
    let event: Extract<ParallelEvent, { kind: 'merged' }>;
    let result: MergeResult;
    let commit: string | undefined;
    let conflictFiles: readonly string[] | undefined;
    if (!wt) {
      result = 'error';
      event = { kind: 'merged', storyId, outcome: 'error', message: 'its worktree is not known to this run' };
    } else {
      try {
        const o = await this.onMainTree(() => queue.merge(wt));
        switch (o.kind) {
          case 'merged':
            result = 'merged';
            commit = o.commit;
            event = { kind: 'merged', storyId, outcome: 'merged' };
            this.worktrees.delete(storyId);
            this.removeLater(this.spares.keep(wt));
            if (o.ignoredStories.length > 0) {
              this.emit({ kind: 'note', storyId, message: `${storyId}: its agent also changed ${o.ignoredStories.join(', ')} in ${this.options.files.prd}; those edits were not merged.` });
            }
            break;
          case 'conflict':
            result = 'conflict';
            conflictFiles = o.files;
            this.lastTrouble.set(storyId, { why: 'conflict', detail: o.files.join(', ') });
            event = { kind: 'merged', storyId, outcome: 'conflict', message: `conflicts in ${o.files.join(', ')}` };
            break;
          case 'check-failed':
            result = 'check-failed';
            this.lastTrouble.set(storyId, { why: 'check-failed', detail: o.output });
            event = { kind: 'merged', storyId, outcome: 'check-failed', message: `exit ${o.exitCode ?? 'none'}: ${o.output.trim().split('\n').slice(-1)[0] ?? ''}`.trim() };
            break;
          case 'not-done':
            result = 'error';
            event = { kind: 'merged', storyId, outcome: 'error', message: o.reason };
            break;
        }
      } catch (e) {
        result = 'error';
        event = { kind: 'merged', storyId, outcome: 'error', message: errorMessage(e) };
      }
    }
    if (result === 'merged') {
      await this.refreshPrd();
    }
    const pending = this.pendingLines.get(storyId);
    if (pending) {
      this.pendingLines.delete(storyId);
      await this.writeLine(pending.line, pending.wave, { result, commit }, storyId);
    }
    this.emit({ kind: 'merged', storyId, result, commit, message: event.message, ...(conflictFiles ? { conflictFiles } : {}) });
    this.post(event);
  }

  /**
   * Runs a change to the worktree list after every one begun before it: git takes locks of its own
   * (the worktree list, a branch made or deleted), and two at once can fail on each other's ("could
   * not lock"), and a prune meanwhile could drop a worktree being moved. A merge is another kind of
   * change (the main tree's index, HEAD and feature branch; objects): it does not wait on these, so
   * a story whose blockers merged gets its worktree while the next story merges.
   */
  private onWorktrees<T>(work: () => Promise<T>): Promise<T> {
    const next = this.worktreeChain.then(work);
    this.worktreeChain = next.catch(() => undefined);
    return next;
  }

  /** Runs a merge into the main tree after every merge begun before it. */
  private onMainTree<T>(work: () => Promise<T>): Promise<T> {
    const next = this.mergeChain.then(work);
    this.mergeChain = next.catch(() => undefined);
    return next;
  }

  /** A spare worktree (a merged story's) made the story's, or undefined: none, or one that could not be taken (then removed). */
  private async reuseSpare(storyId: string, options: AddOptions): Promise<StoryWorktree | undefined> {
    const { wt, drop } = await this.spares.take(this.repo as RepoInfo, storyId, options);
    if (drop) {
      this.removeLater(drop);
    }
    return wt;
  }

  /** Removes a merged story's worktree and branch, one removal at a time, after the loop moved on. */
  private removeLater(wt: StoryWorktree | undefined): void {
    if (!wt) {
      return;
    }
    const next = this.removals.then(async () => {
      try {
        await this.onWorktrees(() => removeWorktree(this.repo as RepoInfo, wt));
      } catch (e) {
        // Kept (it holds something the feature branch lacks, or git refused): the next run's resume lists it.
        this.emit({ kind: 'note', storyId: wt.storyId, message: errorMessage(e) });
      }
    });
    this.removals = next;
    this.track(next);
  }

  /** Worktrees a previous run kept (interrupted, conflicted, failed their check): the stories continue there. */
  private async adoptKept(state: ParallelState | undefined): Promise<void> {
    for (const r of state?.stories ?? []) {
      if (r.state === 'merged' || r.state === 'orphaned') {
        continue;
      }
      const branch = await git(this.root, ['rev-parse', '--verify', '--quiet', `refs/heads/${r.branch}`]);
      if (branch.code === 0 && (await topOf(r.worktree)) !== undefined) {
        this.worktrees.set(r.storyId, { storyId: r.storyId, branch: r.branch, folder: r.worktree, base: r.base });
        if (r.state === 'conflict') {
          this.lastTrouble.set(r.storyId, { why: 'conflict', detail: (r.conflicts ?? []).join(', ') });
        } else if (r.state === 'check-failed') {
          this.lastTrouble.set(r.storyId, { why: 'check-failed', detail: r.note ?? '' });
        }
      }
    }
  }

  /** The story's own worktree or branch when one is there already (worktrees.ts `existingStoryWorktree`), said when it was added again. */
  private async existingWorktree(storyId: string): Promise<{ wt?: StoryWorktree; absent?: true }> {
    const { wt, readded, absent } = await existingStoryWorktree(this.repo as RepoInfo, this.worktreeRoot, storyId);
    if (wt && readded !== undefined) {
      this.emit({ kind: 'note', storyId, message: `${storyId}: its branch ${wt.branch} (${readded} commit(s) not merged) had lost its worktree; it was added again at ${wt.folder} and the story continues there.` });
    }
    return { wt, absent };
  }

  private async readPrd(): Promise<PrdAnalysis | undefined> {
    try {
      return analyzePrd(await readFile(path.join((this.repo as RepoInfo).root, this.options.files.prd), 'utf8'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        return undefined;
      }
      throw new ParallelError('state', `${this.options.files.prd} could not be read (${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}).`);
    }
  }

  /** prd.json after a merge (the counts of the next lines). */
  private async refreshPrd(): Promise<void> {
    const fresh = await this.readPrd().catch(() => undefined);
    if (fresh?.readable) {
      this.prd = fresh;
    }
  }
}
