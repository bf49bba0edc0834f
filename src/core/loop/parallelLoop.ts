/**
 * The parallel loop as a pure state machine (issue 19): no processes, no git, no files, no timers.
 * The driver (the extension's runner, the headless CLI) feeds it events — an agent ended, a merge
 * finished, the user asked to stop, retried or skipped a story — and carries out the commands it
 * returns: start an agent on a story, merge a story, end an agent, show a Needs You item, stop.
 *
 * The rules, each the serial loop's (loop.ts) extended to several slots:
 * - A story is ready when every story it waits on has MERGED (its `passes` set on the feature
 *   branch), not merely finished: THE ready rule of the schedule, followed merge by merge
 *   (`ReadyTracker`). Free slots are refilled after every event, in schedule order, by
 *   `planStarts` (the slots, the same-file guard, the breakers; parallelPlan.ts).
 * - Done stories merge one at a time, in schedule order (the earliest done story first).
 * - The maximum number of iterations counts agent starts across all slots. The failure and
 *   no-progress breakers are per story: a tripped story needs you, the others go on.
 * - A stop request starts nothing new; "after-iteration" lets running agents finish, "now" ends
 *   them; either way, finished work is merged before the loop stops (no work is left unmerged).
 * - It always ends with one `stop` command, when nothing runs, nothing merges and nothing can start,
 *   with the serial loop's reasons (plus `needs-you`) and a line per story that did not finish.
 * An event that does not fit the state (a story that is not running ended) changes nothing.
 */
import { type Budget, BudgetTracker, type RunSpend } from '../insights/budget';
import type { PrdAnalysis } from '../prd/index';
import type { Story } from '../prd/model';
import { ReadyTracker } from '../prd/schedule';
import { type LastLimit, limitBreakerMessage, limitBreakerTripped, maxLimitedOf, stoppedInWaitText } from './limitBreaker';
import { LoopController, type StopMode, type StopReason } from './loop';
import { DEFAULT_PARALLEL_CONFIG, NO_ATTEMPTS, type ParallelConfig, planStarts, type StoryCounters, trippedBreaker } from './parallelPlan';
import { guardedPaths, memoryFileSet } from './sameFile';
import { describeWait, type NeedsYouWhy, type WaitReason } from './waitReasons';

/** How an agent's run ended, as the driver observed it (in its worktree). */
export type AgentOutcome =
  /** The story passes in the worktree's prd.json and its `feat:` commit is there: ready to merge. */
  | 'passed'
  /** The agent exited with an error and the story does not pass. */
  | 'failed'
  /** The agent exited normally but the story does not pass (a false COMPLETE included). */
  | 'no-progress'
  /** The agent was ended (Stop All, Stop This Agent). */
  | 'stopped'
  /** The agent asked a question: the user answers. */
  | 'question'
  /** Something else stopped the story (a dirty worktree, the worktree could not be made): `message` says what. */
  | 'error'
  /** The agent hit its usage or rate limit (or an overload): the loop waits, then runs the story again. */
  | 'rate-limited';

export type MergeOutcome = 'merged' | 'conflict' | 'check-failed' | 'error';

export type ParallelEvent =
  /** `resetAt`: a rate-limited run's reset time, when its agent printed one (for the limit breaker's message). */
  | { readonly kind: 'agentEnded'; readonly storyId: string; readonly outcome: AgentOutcome; readonly message?: string; readonly filesChanged?: readonly string[]; readonly spent?: RunSpend; readonly resetAt?: Date }
  | { readonly kind: 'merged'; readonly storyId: string; readonly outcome: MergeOutcome; readonly message?: string }
  | { readonly kind: 'stopRequested'; readonly mode: StopMode }
  /** The user's Retry on a Needs You item: the story may run again, its breakers reset. */
  | { readonly kind: 'retry'; readonly storyId: string }
  /** The user's Skip Story: it does not run in this loop (what waits on it cannot run either). */
  | { readonly kind: 'skip'; readonly storyId: string }
  /** A wait the loop asked for (`limitWait`) ended: its time came, or Resume Now, or a stop. */
  | { readonly kind: 'limitEnded' };

export interface NeedsYouItem {
  readonly storyId: string;
  readonly storyTitle: string;
  readonly why: NeedsYouWhy;
  /** "US-003 needs you: its merge into the feature branch conflicted." */
  readonly message: string;
  /** What the driver said of it, as text (a question: the agent's question; an error: what happened). */
  readonly detail?: string;
}

export type ParallelCommand =
  | { readonly kind: 'start'; readonly storyId: string; readonly storyTitle: string; readonly iteration: number; readonly maxIterations: number; readonly files: readonly string[] }
  | { readonly kind: 'merge'; readonly storyId: string }
  | { readonly kind: 'stopAgent'; readonly storyId: string }
  | { readonly kind: 'needsYou'; readonly item: NeedsYouItem }
  /** Wait out an agent's limit (the driver knows what it printed), then send `limitEnded`; `inARow` is the backoff's step. */
  | { readonly kind: 'limitWait'; readonly storyId: string; readonly inARow: number }
  | ParallelStop;

export interface ParallelStop {
  readonly kind: 'stop';
  readonly reason: StopReason;
  /** One human sentence, e.g. "Stopped: every story passes (12/12)." */
  readonly message: string;
  /** A line per story that did not finish, and why. */
  readonly details: readonly string[];
  /** The Needs You items still open (the CLI exits 1 when there is one). */
  readonly needsYou: readonly NeedsYouItem[];
}

export type StoryPhase = 'pending' | 'running' | 'done' | 'merging' | 'merged' | 'needs-you' | 'skipped';

export interface ParallelLoopOptions {
  readonly config?: Partial<ParallelConfig>;
  /** Each story's predicted files (`predictAll`); a story not in the map is predicted to touch nothing. */
  readonly predictions?: ReadonlyMap<string, readonly string[]>;
  /** How prd.json is named in messages. */
  readonly prdLabel?: string;
  /** The repository paths of prd.json and progress.txt, never counted by the guard (default prd.json, progress.txt). */
  readonly memoryFiles?: readonly string[];
  /** Run only these stories (`run --story`): the others count as skipped from the start. */
  readonly only?: readonly string[];
  /** Cost and token caps (ralph.budget.*). */
  readonly budget?: Budget;
}

export class ParallelLoop {
  readonly config: ParallelConfig;
  private readonly stories: readonly Story[];
  private readonly tracker: ReadyTracker | undefined;
  private readonly compare: (a: number, b: number) => number = (a, b) => a - b;
  private readonly memory: ReadonlySet<string>;
  private readonly indexOf = new Map<string, number>();
  private readonly phase = new Map<string, StoryPhase>();
  /** Stories left out of this run by its `only` list (run --story, Run Wave): not the user's Skip Story. */
  private readonly outside = new Set<string>();
  private readonly counters = new Map<string, StoryCounters>();
  private readonly files = new Map<string, readonly string[]>();
  private readonly open = new Map<string, NeedsYouItem & { reason: Extract<WaitReason, { kind: 'needs-you' }> }>();
  /** Stories whose work is not on the feature branch yet (running, done, merging), in start order. */
  private readonly holding = new Map<string, readonly string[]>();
  private readonly mergeQueue: number[] = [];
  private merging: string | undefined;
  private runningCount = 0;
  private iterations = 0;
  /** Limit waits asked for and not ended yet: while there is one, nothing starts and the loop does not stop. */
  private limitWaits = 0;
  private limitedInARow = 0;
  /** The limit breaker tripped (limitBreaker.ts): the count then and the last limited run; nothing starts or waits any more. */
  private limitTrip: { readonly inARow: number; readonly last: LastLimit } | undefined;
  /** A stop came while the loop waited for a limit; how many agents ran then. */
  private stopInWait: { readonly running: number } | undefined;
  private stopMode: StopMode | undefined;
  private finished: ParallelStop | undefined;
  private waiting: readonly { readonly storyId: string; readonly reason: WaitReason }[] = [];
  private readonly early: ParallelStop | undefined;
  private readonly spending: BudgetTracker;

  /** `prd`: prd.json on the feature branch as the loop starts (undefined: there is none). */
  constructor(prd: PrdAnalysis | undefined, options: ParallelLoopOptions = {}) {
    const pick = (v: number | undefined, d: number): number => (v !== undefined && Number.isFinite(v) && v >= 1 ? Math.floor(v) : d);
    const c = options.config ?? {};
    this.config = {
      maxAgents: pick(c.maxAgents, DEFAULT_PARALLEL_CONFIG.maxAgents),
      maxIterations: pick(c.maxIterations, DEFAULT_PARALLEL_CONFIG.maxIterations),
      failureLimit: pick(c.failureLimit, DEFAULT_PARALLEL_CONFIG.failureLimit),
      noProgressLimit: pick(c.noProgressLimit, DEFAULT_PARALLEL_CONFIG.noProgressLimit),
      allowOverlap: c.allowOverlap ?? DEFAULT_PARALLEL_CONFIG.allowOverlap,
      maxLimitedInARow: maxLimitedOf(c.maxLimitedInARow),
    };
    this.memory = memoryFileSet(options.memoryFiles);
    this.spending = new BudgetTracker(options.budget);
    // A missing or unreadable prd.json, or nothing to run: the serial loop's first answer, word for word.
    const first = new LoopController({ maxIterations: this.config.maxIterations, prdLabel: options.prdLabel }).nextStep(prd);
    if (!prd || first.kind === 'stop') {
      this.stories = [];
      this.early = first.kind === 'stop' ? { kind: 'stop', reason: first.reason, message: first.message, details: first.details, needsYou: [] } : undefined;
      return;
    }
    this.stories = prd.doc.stories;
    this.tracker = new ReadyTracker(this.stories, prd.readiness.schedule);
    this.compare = prd.readiness.schedule.compare;
    this.stories.forEach((s, i) => {
      if (!this.indexOf.has(s.id)) {
        this.indexOf.set(s.id, i);
      }
      const left = !s.passes && options.only !== undefined && !options.only.includes(s.id);
      if (left) {
        this.outside.add(s.id);
      }
      this.phase.set(s.id, s.passes ? 'merged' : left ? 'skipped' : 'pending');
    });
    for (const [id, paths] of options.predictions ?? []) {
      this.files.set(id, guardedPaths(paths, this.memory));
    }
  }

  /** The commands to begin with (the first starts, or the stop when nothing can run). */
  begin(): ParallelCommand[] {
    if (this.finished) {
      return [];
    }
    if (this.early) {
      return this.finish(this.early);
    }
    return this.step([]);
  }

  /** Takes in one event; returns what to do now. After the `stop` command, nothing. */
  handle(event: ParallelEvent): ParallelCommand[] {
    if (this.finished) {
      return [];
    }
    const out: ParallelCommand[] = [];
    switch (event.kind) {
      case 'agentEnded':
        if (this.phase.get(event.storyId) !== 'running') {
          return [];
        }
        this.runningCount--;
        this.agentEnded(event, out);
        break;
      case 'merged':
        if (this.merging !== event.storyId) {
          return [];
        }
        this.merging = undefined;
        this.mergeEnded(event, out);
        break;
      case 'stopRequested':
        if (this.limitWaits > 0) {
          this.stopInWait ??= { running: this.runningCount };
        }
        if (this.stopMode !== 'now') {
          this.stopMode = event.mode;
        }
        if (event.mode === 'now') {
          for (const [id, phase] of this.phase) {
            if (phase === 'running') {
              out.push({ kind: 'stopAgent', storyId: id });
            }
          }
        }
        break;
      case 'retry':
        if (!this.open.has(event.storyId)) {
          return [];
        }
        this.open.delete(event.storyId);
        this.counters.set(event.storyId, { ...this.countersOf(event.storyId), consecutiveFailures: 0, consecutiveNoProgress: 0 });
        this.phase.set(event.storyId, 'pending');
        break;
      case 'limitEnded':
        if (this.limitWaits === 0) {
          return [];
        }
        this.limitWaits--;
        break;
      case 'skip': {
        const phase = this.phase.get(event.storyId);
        if (phase !== 'pending' && phase !== 'needs-you') {
          return [];
        }
        this.open.delete(event.storyId);
        this.phase.set(event.storyId, 'skipped');
        break;
      }
    }
    return this.step(out);
  }

  /** Why each ready story that is not running waits, as of the last decision (for the graph and the tree). */
  get waits(): readonly { readonly storyId: string; readonly reason: WaitReason }[] {
    return this.waiting;
  }

  get status(): { readonly iterations: number; readonly running: number; readonly merging?: string; readonly stopRequested?: StopMode; readonly stopped?: ParallelStop } {
    return { iterations: this.iterations, running: this.runningCount, merging: this.merging, stopRequested: this.stopMode, stopped: this.finished };
  }

  phaseOf(storyId: string): StoryPhase | undefined {
    return this.phase.get(storyId);
  }

  countersOf(storyId: string): StoryCounters {
    return this.counters.get(storyId) ?? NO_ATTEMPTS;
  }

  /** The open Needs You items. */
  get needsYou(): readonly NeedsYouItem[] {
    return [...this.open.values()].map(({ reason: _reason, ...item }) => item);
  }

  private agentEnded(event: Extract<ParallelEvent, { kind: 'agentEnded' }>, out: ParallelCommand[]): void {
    const id = event.storyId;
    if (event.filesChanged && event.filesChanged.length > 0) {
      // What an attempt changed is part of the story's prediction from now on (as progress.txt would say).
      this.files.set(id, guardedPaths([...(this.files.get(id) ?? []), ...event.filesChanged], this.memory));
    }
    const c = this.countersOf(id);
    if (event.outcome !== 'rate-limited') {
      this.limitedInARow = 0;
    }
    // Every run that got to its agent counts (what it spent, or as unknown): not one cut short before.
    if (event.outcome !== 'error' || event.spent) {
      this.spending.add(id, event.spent);
    }
    const overCap = event.outcome === 'passed' ? undefined : this.spending.storyCapReached(id);
    if (overCap && event.outcome !== 'stopped') {
      this.needs(id, { kind: 'needs-you', why: 'budget', message: overCap }, out);
      return;
    }
    switch (event.outcome) {
      case 'rate-limited':
        // Neither a breaker's count nor an iteration: the provider stopped it, not the work.
        this.counters.set(id, { ...c, attempts: Math.max(0, c.attempts - 1) });
        this.iterations--;
        this.limitedInARow++;
        this.release(id, 'pending');
        if (this.limitTrip || limitBreakerTripped(this.limitedInARow, this.config.maxLimitedInARow ?? 0)) {
          // The breaker: no wait, nothing new starts, the waits asked for no longer hold the loop;
          // it stops once the running agents end (their finished work merges).
          this.limitTrip = { inARow: Math.max(this.limitTrip?.inARow ?? 0, this.limitedInARow), last: { storyId: id, ...(event.resetAt ? { resetAt: event.resetAt } : {}) } };
          this.limitWaits = 0;
          return;
        }
        this.limitWaits++;
        out.push({ kind: 'limitWait', storyId: id, inARow: this.limitedInARow });
        return;
      case 'passed':
        this.counters.set(id, { attempts: c.attempts, consecutiveFailures: 0, consecutiveNoProgress: 0 });
        this.phase.set(id, 'done');
        this.holding.set(id, this.files.get(id) ?? []);
        this.mergeQueue.push(this.indexOf.get(id) as number);
        return;
      case 'stopped':
        // Ended by a stop of the loop: it may run in a later loop. Ended alone (Stop This Agent):
        // starting it again at once would undo what the user did, so it waits for them.
        if (this.stopMode) {
          this.release(id, 'pending');
        } else {
          this.needs(id, { kind: 'needs-you', why: 'stopped' }, out);
        }
        return;
      case 'failed':
      case 'no-progress': {
        const next: StoryCounters = {
          attempts: c.attempts,
          consecutiveFailures: event.outcome === 'failed' ? c.consecutiveFailures + 1 : 0,
          consecutiveNoProgress: c.consecutiveNoProgress + 1,
        };
        this.counters.set(id, next);
        const tripped = trippedBreaker(next, this.config);
        if (tripped) {
          this.needs(id, { kind: 'needs-you', ...tripped, ...(event.message ? { message: event.message } : {}) }, out);
        } else {
          this.release(id, 'pending');
        }
        return;
      }
      case 'question':
      case 'error':
        this.needs(id, { kind: 'needs-you', why: event.outcome, ...(event.message ? { message: event.message } : {}) }, out);
        return;
    }
  }

  private mergeEnded(event: Extract<ParallelEvent, { kind: 'merged' }>, out: ParallelCommand[]): void {
    const id = event.storyId;
    if (event.outcome === 'merged') {
      this.holding.delete(id);
      this.phase.set(id, 'merged');
      this.tracker?.pass(this.indexOf.get(id) as number);
      return;
    }
    this.needs(id, { kind: 'needs-you', why: event.outcome === 'error' ? 'error' : event.outcome, ...(event.message ? { message: event.message } : {}) }, out);
  }

  private release(id: string, phase: StoryPhase): void {
    this.holding.delete(id);
    this.phase.set(id, phase);
  }

  private needs(id: string, reason: Extract<WaitReason, { kind: 'needs-you' }>, out: ParallelCommand[]): void {
    this.release(id, 'needs-you');
    const title = this.stories[this.indexOf.get(id) as number]?.title ?? '';
    const said = describeWait(reason);
    // A detail that is a sentence of its own already ends with its period.
    const item: NeedsYouItem = { storyId: id, storyTitle: title, why: reason.why, message: `${id} ${said}${said.endsWith('.') ? '' : '.'}`, ...(reason.message ? { detail: reason.message } : {}) };
    this.open.set(id, { ...item, reason });
    out.push({ kind: 'needsYou', item });
  }

  /** After an event: the next merge, the starts, or the stop. */
  private step(out: ParallelCommand[]): ParallelCommand[] {
    const tracker = this.tracker as ReadyTracker;
    if (this.merging === undefined && this.mergeQueue.length > 0) {
      let best = 0;
      for (let k = 1; k < this.mergeQueue.length; k++) {
        if (this.compare(this.mergeQueue[k], this.mergeQueue[best]) < 0) {
          best = k;
        }
      }
      const [i] = this.mergeQueue.splice(best, 1);
      this.merging = this.stories[i].id;
      this.phase.set(this.merging, 'merging');
      out.push({ kind: 'merge', storyId: this.merging });
    }
    const ready: string[] = [];
    for (const i of tracker.ready()) {
      const id = this.stories[i].id;
      const phase = this.phase.get(id);
      if ((phase === 'pending' || phase === 'needs-you' || phase === 'skipped') && this.indexOf.get(id) === i) {
        ready.push(id);
      }
    }
    const plan = planStarts({
      ready,
      holders: [...this.holding].map(([storyId, files]) => ({ storyId, files })),
      running: this.runningCount,
      iterations: this.iterations,
      config: this.config,
      filesOf: (id) => this.files.get(id) ?? [],
      countersOf: (id) => this.countersOf(id),
      needsYou: (id) => this.open.get(id)?.reason,
      skipped: (id) => this.phase.get(id) === 'skipped',
      stopping: this.stopMode !== undefined || this.limitTrip !== undefined || this.spending.loopCapReached() !== undefined,
      limited: this.limitWaits > 0,
    });
    for (const id of plan.start) {
      const c = this.countersOf(id);
      this.counters.set(id, { ...c, attempts: c.attempts + 1 });
      this.iterations++;
      this.runningCount++;
      this.phase.set(id, 'running');
      const files = this.files.get(id) ?? [];
      this.holding.set(id, files);
      out.push({ kind: 'start', storyId: id, storyTitle: this.stories[this.indexOf.get(id) as number].title, iteration: this.iterations, maxIterations: this.config.maxIterations, files });
    }
    this.waiting = plan.waits;
    if (this.runningCount === 0 && this.merging === undefined && this.mergeQueue.length === 0 && this.limitWaits === 0) {
      return this.finish(this.stopCommand(plan.waits), out);
    }
    return out;
  }

  private finish(stop: ParallelStop, out: ParallelCommand[] = []): ParallelCommand[] {
    this.finished = stop;
    out.push(stop);
    return out;
  }

  /** Why the loop ends now (nothing runs, nothing merges, nothing started). */
  private stopCommand(waits: readonly { readonly storyId: string; readonly reason: WaitReason }[]): ParallelStop {
    const total = this.stories.length;
    const passing = this.stories.filter((_, i) => this.tracker?.passes(i)).length;
    const counts = `(${passing}/${total} stories pass)`;
    const ran = `${this.iterations} iteration${this.iterations === 1 ? '' : 's'}`;
    const needsYou = this.needsYou;
    // The stories this run left out are counted, not listed: they were never its to run.
    const left = this.stories.filter((s, i) => !this.tracker?.passes(i) && this.outside.has(s.id) && this.phase.get(s.id) === 'skipped').length;
    const details = this.stories
      .filter((s, i) => !this.tracker?.passes(i) && !(this.outside.has(s.id) && this.phase.get(s.id) === 'skipped'))
      .map((s) => `${s.id}: ${storyLine(s.id, waits, this.open.get(s.id)?.reason, this.phase.get(s.id), this.blockerOf(s))}`);
    if (left > 0) {
      details.push(`${left} other ${left === 1 ? 'story was' : 'stories were'} not part of this run.`);
    }
    const stop = (reason: StopReason, message: string): ParallelStop => ({ kind: 'stop', reason, message, details, needsYou });
    if (this.stopMode && this.stopInWait) {
      const others = this.stopInWait.running > 0 ? (this.stopMode === 'now' ? '; the running agents were ended' : '; the running agents finished') : '';
      return stop('stop-requested', `Stopped: ${stoppedInWaitText(undefined)}${others}; ${ran} ran${this.iterations > 0 ? ', their finished work merged' : ''} ${counts}.`);
    }
    if (this.stopMode) {
      return stop('stop-requested', `Stopped: you ${this.stopMode === 'now' ? 'stopped the loop; the running agents were ended' : 'asked to stop after the running iterations'}; ${ran} ran, their finished work merged ${counts}.`);
    }
    if (passing === total) {
      return stop('all-pass', `Stopped: every story passes (${passing}/${total}).`);
    }
    if (left > 0 && passing + left === total) {
      return stop('all-pass', `Stopped: every story this run took passes ${counts}.`);
    }
    if (this.limitTrip) {
      return stop('rate-limit', limitBreakerMessage(this.limitTrip.inARow, this.limitTrip.last, this.config.maxLimitedInARow ?? 0, counts));
    }
    const spentOut = this.spending.loopCapReached();
    if (spentOut) {
      return stop('budget', `${spentOut.replace(/\.$/, '')} ${counts}.`);
    }
    if (waits.some((w) => w.reason.kind === 'iteration-limit')) {
      return stop('max-iterations', `Stopped: reached the maximum of ${this.config.maxIterations} iteration${this.config.maxIterations === 1 ? '' : 's'} across the slots ${counts}.`);
    }
    if (needsYou.length > 0) {
      const kinds = new Set(needsYou.map((n) => n.why));
      const reason: StopReason = kinds.size === 1 && kinds.has('failures') ? 'failures' : kinds.size === 1 && kinds.has('no-progress') ? 'no-progress' : 'needs-you';
      const who = needsYou.map((n) => n.storyId).join(', ');
      return stop(reason, `Stopped: ${needsYou.length === 1 ? 'a story needs' : `${needsYou.length} stories need`} you (${who}) and nothing else can run ${counts}.`);
    }
    return stop('nothing-ready', `Stopped: nothing is ready — ${total - passing} stor${total - passing === 1 ? 'y remains' : 'ies remain'} and none can run ${counts}.`);
  }

  /** The first story this one waits on that is not merged, for the stop's details. */
  private blockerOf(s: Story): string | undefined {
    return s.dependencies.find((d) => {
      const i = this.indexOf.get(d);
      return i === undefined || !this.tracker?.passes(i);
    });
  }
}

function storyLine(id: string, waits: readonly { readonly storyId: string; readonly reason: WaitReason }[], open: WaitReason | undefined, phase: StoryPhase | undefined, blocker: string | undefined): string {
  const wait = waits.find((w) => w.storyId === id)?.reason ?? open;
  if (wait) {
    return describeWait(wait);
  }
  if (phase === 'skipped') {
    return describeWait({ kind: 'skipped' });
  }
  if (blocker === id) {
    return 'cannot run: it waits on itself';
  }
  return blocker !== undefined ? `waits on ${blocker}, which has not merged` : 'cannot run (a dependency cycle)';
}

