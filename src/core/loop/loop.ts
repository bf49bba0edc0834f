/**
 * The loop rules as a pure state machine: no timers, no processes, no files. The caller reads
 * prd.json, asks `nextStep`, runs the agent, reads prd.json again and reports with
 * `recordIteration`; the controller decides whether to go on and says why it stops.
 *
 * The first iteration runs the story the user picked, if any (`firstStory`), else the next ready one.
 * Stop rules (issue 3): every story passes; nothing is ready (saying which stories block the
 * rest); the maximum number of iterations; a stop request; K consecutive iterations in which no
 * story turned to passing; K consecutive non-zero exits; prd.json missing or unreadable.
 * `<promise>COMPLETE</promise>` is a claim, not a fact: while stories still fail on disk it is a
 * false completion, noted, and the loop goes on.
 * A run stopped by the agent's usage or rate limit (issue 21) counts toward neither breaker nor the
 * maximum: the caller waits for the reset, and the same story runs again.
 */
import type { LimitVerdict } from '../insights/limits';
import { type LastLimit, limitBreakerMessage, limitBreakerTripped, maxLimitedOf, stoppedInWaitText } from './limitBreaker';
import { type Budget, BudgetTracker, type RunSpend } from '../insights/budget';
import type { PrdAnalysis } from '../prd/index';
import type { Problem } from '../prd/problems';
import type { RunOutcome } from '../runs/runs';

export interface LoopConfig {
  /** Iterations to run at most (default 10). */
  readonly maxIterations: number;
  /** Stop after this many consecutive iterations in which no story turned to passing (default 2). */
  readonly noProgressLimit: number;
  /** Stop after this many consecutive non-zero exits (default 2). */
  readonly failureLimit: number;
  /** How prd.json is named in messages (default "prd.json"). */
  readonly prdLabel?: string;
  /**
   * The story the user picked ("Run this story"): the first iteration runs it whatever its state
   * (the command asked before running a blocked or done one); the loop then chooses as usual.
   */
  readonly firstStory?: string;
  /** Cost and token caps (ralph.budget.*): no further iteration once the loop's spending reaches one. */
  readonly budget?: Budget;
  /** Stop after this many rate-limited iterations in a row (ralph.agent.maxLimitedInARow, default 5; 0: never). */
  readonly maxLimitedInARow?: number;
}

export const DEFAULT_LOOP_CONFIG: LoopConfig = { maxIterations: 10, noProgressLimit: 2, failureLimit: 2 };

/**
 * `cancelled`: the user chose not to run (e.g. at the dirty-working-tree question) before any iteration.
 * `needs-you` (the parallel loop): nothing else can run while stories wait for the user (a merge
 * conflict, a failed check, a question, breakers of both kinds); when every such story tripped the
 * same breaker, the reason is that breaker's (`failures`, `no-progress`), as in the serial loop.
 * `rate-limit`: the agent hit its limit in ralph.agent.maxLimitedInARow runs in a row (limitBreaker.ts).
 */
export type StopReason = 'all-pass' | 'nothing-ready' | 'max-iterations' | 'stop-requested' | 'no-progress' | 'failures' | 'invalid-prd' | 'prd-missing' | 'cancelled' | 'needs-you' | 'budget' | 'rate-limit';

export type StopMode = 'after-iteration' | 'now';

export interface RunStep {
  readonly kind: 'run';
  readonly storyId: string;
  readonly storyTitle: string;
  /** 1-based number of the iteration this step starts. */
  readonly iteration: number;
  readonly maxIterations: number;
}

export interface StopStep {
  readonly kind: 'stop';
  readonly reason: StopReason;
  /** One human sentence, e.g. "Stopped: every story passes (12/12)." */
  readonly message: string;
  /** Extra lines (the blocking chains, the prd.json problems). */
  readonly details: readonly string[];
}

export type LoopStep = RunStep | StopStep;

/** What happened in one iteration, as the caller observed it. */
export interface IterationResult {
  readonly storyId: string;
  /** Exit code of the agent; null when it is unknown (no shell integration) or the process was killed. */
  readonly exitCode: number | null;
  /** Passing stories before the iteration. */
  readonly passingBefore: number;
  /** Passing stories after it (re-read from disk); ignored when `prdReadable` is false. */
  readonly passingAfter: number;
  /** Stories in prd.json after the iteration (for the false-completion check); defaults to passingAfter when unknown. */
  readonly totalAfter?: number;
  /** Whether the story the iteration was about passes now. */
  readonly storyPasses: boolean;
  /** Whether the agent printed <promise>COMPLETE</promise>. */
  readonly completeSignal: boolean;
  /** True when the user ended the agent ("Stop now"). */
  readonly stopped?: boolean;
  /** False when prd.json was missing or unreadable afterwards. */
  readonly prdReadable?: boolean;
  /** The `feat: <id> - …` commit subject when git was checked: null = none made; undefined = not checked. */
  readonly commit?: string | null;
  /** The agent's provider limit, when its output said so (src/core/insights/limits.ts). */
  readonly limit?: LimitVerdict;
  /** What the agent reported spending (its receipt); undefined: unknown. */
  readonly spent?: RunSpend;
  /** The agent preset that ran (for the messages). */
  readonly agent?: string;
}

export interface IterationRecord {
  readonly iteration: number;
  readonly outcome: RunOutcome;
  /** Some story turned to passing. */
  readonly progress: boolean;
  readonly falseComplete: boolean;
  /** Sentences for the log and the user (false completion, exit code surprises, missing commit). */
  readonly notes: readonly string[];
}

export interface LoopStatus {
  /** Iterations recorded so far. */
  readonly iterations: number;
  readonly maxIterations: number;
  readonly consecutiveNoProgress: number;
  readonly consecutiveFailures: number;
  readonly stopRequested?: StopMode;
  readonly falseCompletions: number;
  /** Rate-limited iterations in a row (0 after any other): the backoff's step. */
  readonly limitedInARow: number;
}

/** The outcome of an iteration, from what is on disk first and the exit code second. */
export function iterationOutcome(r: IterationResult): RunOutcome {
  const total = r.totalAfter ?? r.passingAfter;
  if (r.stopped) {
    return 'stopped';
  }
  if (r.prdReadable === false) {
    return 'error';
  }
  if (r.completeSignal && r.passingAfter < total) {
    return 'false-complete';
  }
  if (r.storyPasses || r.passingAfter > r.passingBefore) {
    return 'passed';
  }
  // exit status matters: a limit message from an agent that exited 0 is the story's text, not a limit
  if (r.limit && r.exitCode !== 0) {
    return 'rate-limited';
  }
  if (r.exitCode !== null && r.exitCode !== 0) {
    return 'failed';
  }
  return 'no-progress';
}

export class LoopController {
  readonly config: LoopConfig;
  private iterations = 0;
  private noProgress = 0;
  private failures = 0;
  private falseCompletions = 0;
  private limited = 0;
  private limitedInARow = 0;
  /** The story a rate-limited iteration was on: it runs again next. */
  private retryStory: string | undefined;
  private lastLimit: (LastLimit & { readonly agent?: string }) | undefined;
  /** The caller waits out the agent's limit now; a stop meanwhile ended no agent. */
  private waiting = false;
  private stopInWait = false;
  private stop: StopMode | undefined;
  private lastStory: string | undefined;
  private lastExit: number | null = null;
  private readonly history: IterationRecord[] = [];
  private readonly spending: BudgetTracker;

  constructor(config: Partial<LoopConfig> = {}) {
    const pick = (v: number | undefined, d: number): number => (v !== undefined && Number.isFinite(v) && v >= 1 ? Math.floor(v) : d);
    this.config = {
      maxIterations: pick(config.maxIterations, DEFAULT_LOOP_CONFIG.maxIterations),
      noProgressLimit: pick(config.noProgressLimit, DEFAULT_LOOP_CONFIG.noProgressLimit),
      failureLimit: pick(config.failureLimit, DEFAULT_LOOP_CONFIG.failureLimit),
      prdLabel: config.prdLabel ?? 'prd.json',
      ...(config.firstStory !== undefined ? { firstStory: config.firstStory } : {}),
      ...(config.budget ? { budget: config.budget } : {}),
      maxLimitedInARow: maxLimitedOf(config.maxLimitedInARow),
    };
    this.spending = new BudgetTracker(config.budget);
  }

  get status(): LoopStatus {
    return {
      iterations: this.iterations,
      maxIterations: this.config.maxIterations,
      consecutiveNoProgress: this.noProgress,
      consecutiveFailures: this.failures,
      stopRequested: this.stop,
      falseCompletions: this.falseCompletions,
      limitedInARow: this.limitedInARow,
    };
  }

  get records(): readonly IterationRecord[] {
    return this.history;
  }

  /** Asks the loop to stop: after the running iteration, or now (the caller ends the agent). A later "now" upgrades "after-iteration". */
  requestStop(mode: StopMode): void {
    if (this.stop !== 'now') {
      this.stop = mode;
    }
    this.stopInWait ||= this.waiting;
  }

  /** The caller starts (true) or ends (false) its wait for the agent's limit after a rate-limited iteration. */
  limitWait(on: boolean): void {
    this.waiting = on;
  }

  /** The limited iterations in a row reached ralph.agent.maxLimitedInARow: no wait, the loop stops. */
  get limitBreakerTripped(): boolean {
    return limitBreakerTripped(this.limitedInARow, this.config.maxLimitedInARow ?? 0);
  }

  /**
   * What to do next, given prd.json as it is on disk now (undefined: the file does not exist).
   * Pure with respect to the controller: asking twice gives the same answer.
   */
  nextStep(prd: PrdAnalysis | undefined): LoopStep {
    const label = this.config.prdLabel ?? 'prd.json';
    const n = this.iterations;
    if (this.stop) {
      const done = n === 0 ? 'before the first iteration' : `after ${plural(n, 'iteration')}`;
      if (this.stopInWait) {
        return stopStep('stop-requested', withCounts(`Stopped: ${stoppedInWaitText(this.lastLimit?.agent)} (${done}${this.lastStory ? `, last story ${this.lastStory}` : ''}); no agent was running.`, prd));
      }
      const message =
        this.stop === 'now'
          ? `Stopped: you stopped the loop; the agent was ended ${done}${this.lastStory && n > 0 ? ` (last story ${this.lastStory})` : ''}.`
          : `Stopped: you asked to stop after the current iteration; ${n === 0 ? 'no iteration ran' : `${plural(n, 'iteration')} ran`}.`;
      return stopStep('stop-requested', withCounts(message, prd));
    }
    if (prd === undefined) {
      return stopStep('prd-missing', `Stopped: ${label} does not exist${n > 0 ? ' any more (was it deleted or moved during the last iteration?)' : ''}. Create it or point ralph.prdPath at it.`);
    }
    if (!prd.readable) {
      const problems = prd.problems.filter((p) => p.severity === 'error');
      const first = problems[0];
      const where = first ? ` (line ${first.range.start.line + 1}: ${first.message})` : '';
      return stopStep(
        'invalid-prd',
        `Stopped: ${label} cannot be read as a list of stories${where}. Fix it and start again; no agent was run.`,
        problems.slice(0, 10).map((p) => problemLine(label, p)),
      );
    }
    if (this.limitBreakerTripped) {
      return stopStep('rate-limit', limitBreakerMessage(this.limitedInARow, this.lastLimit, this.config.maxLimitedInARow ?? 0, countsOf(prd)));
    }
    const wanted = n === 0 ? this.config.firstStory : this.retryStory;
    const picked = wanted !== undefined ? prd.doc.stories.find((s) => s.id === wanted && (n === 0 || !s.passes)) : undefined;
    if (picked) {
      return { kind: 'run', storyId: picked.id, storyTitle: picked.title, iteration: n + 1, maxIterations: this.config.maxIterations };
    }
    const r = prd.readiness;
    if (r.state === 'empty') {
      return stopStep('all-pass', `Stopped: ${label} has no stories, so there is nothing to run.`);
    }
    if (r.state === 'complete') {
      return stopStep('all-pass', `Stopped: every story passes (${r.counts.done}/${r.counts.total}).`);
    }
    const spentOut = this.spending.loopCapReached();
    if (spentOut) {
      return stopStep('budget', withCounts(spentOut, prd));
    }
    // A story over its own cost cap is not started again: the next ready one runs instead.
    const next = r.ready.find((s) => this.spending.storyCapReached(s.story.id) === undefined);
    if (r.next && !next) {
      const over = r.ready.map((s) => `${s.story.id}: ${this.spending.storyCapReached(s.story.id)}`);
      return stopStep('budget', withCounts(`Stopped: every ready story is over its cost cap (${over.join('; ')}).`, prd), over);
    }
    if (!r.next) {
      const remaining = r.counts.total - r.counts.done;
      const details = r.explanation.length > 0 ? r.explanation : r.blocked.map((b) => `${b.id} waits on ${b.waitingOn.join(', ')}.`);
      return stopStep(
        'nothing-ready',
        `Stopped: nothing is ready — ${plural(remaining, 'story')} remain${remaining === 1 ? 's' : ''} and none can run. ${details.join(' ')}`.trim(),
        details,
      );
    }
    if (this.failures >= this.config.failureLimit) {
      return stopStep(
        'failures',
        withCounts(`Stopped: the agent exited with an error in ${plural(this.failures, 'consecutive iteration')} (last: exit code ${this.lastExit ?? '?'} on ${this.lastStory}). Check the terminal output and the agent command.`, prd),
      );
    }
    if (this.noProgress >= this.config.noProgressLimit) {
      return stopStep(
        'no-progress',
        withCounts(`Stopped: no story turned to passing in ${plural(this.noProgress, 'consecutive iteration')} (last: ${this.lastStory}). Read progress.txt and the agent output before running again.`, prd),
      );
    }
    if (n - this.limited >= this.config.maxIterations) {
      return stopStep('max-iterations', withCounts(`Stopped: reached the maximum of ${plural(this.config.maxIterations, 'iteration')}.`, prd));
    }
    const story = (next ?? r.next).story;
    return { kind: 'run', storyId: story.id, storyTitle: story.title, iteration: n + 1, maxIterations: this.config.maxIterations };
  }

  /** Records what an iteration did, updates the breakers, and returns its outcome and notes. */
  recordIteration(result: IterationResult): IterationRecord {
    this.iterations++;
    this.lastStory = result.storyId;
    this.spending.add(result.storyId, result.spent);
    this.lastExit = result.exitCode;
    const outcome = iterationOutcome(result);
    if (outcome === 'rate-limited') {
      return this.recordLimited(result);
    }
    this.limitedInARow = 0;
    this.retryStory = undefined;
    const readable = result.prdReadable !== false;
    const progress = readable && result.passingAfter > result.passingBefore;
    const total = result.totalAfter ?? result.passingAfter;
    const falseComplete = readable && result.completeSignal && result.passingAfter < total;
    const notes: string[] = [];

    if (progress || result.stopped) {
      this.noProgress = 0;
    } else {
      this.noProgress++;
    }
    if (result.exitCode !== null && result.exitCode !== 0 && !result.stopped) {
      this.failures++;
    } else if (result.exitCode === 0) {
      this.failures = 0;
    }

    if (result.stopped) {
      notes.push(`The agent for ${result.storyId} was ended by "Stop now".`);
    }
    if (!readable) {
      notes.push(`prd.json was missing or unreadable after the iteration on ${result.storyId}.`);
    }
    if (falseComplete) {
      this.falseCompletions++;
      const failing = total - result.passingAfter;
      notes.push(
        `False completion: the agent printed <promise>COMPLETE</promise> but ${plural(failing, 'story')} still ${failing === 1 ? 'fails' : 'fail'} in prd.json (${result.passingAfter}/${total} pass); the loop goes on.`,
      );
    } else if (readable && result.completeSignal) {
      notes.push(`The agent signalled COMPLETE and every story passes (${result.passingAfter}/${total}).`);
    }
    if (readable && !result.stopped) {
      if (result.storyPasses && result.exitCode !== null && result.exitCode !== 0) {
        notes.push(`${result.storyId} passes in prd.json although the agent exited with code ${result.exitCode}.`);
      }
      if (!result.storyPasses && result.passingAfter > result.passingBefore) {
        notes.push(`${result.storyId} still does not pass, but another story turned to passing (${result.passingBefore} → ${result.passingAfter}).`);
      }
      if (result.passingAfter < result.passingBefore) {
        notes.push(`Fewer stories pass than before the iteration (${result.passingBefore} → ${result.passingAfter}): a story was set back to "passes": false.`);
      }
      if (result.storyPasses && result.commit === null) {
        notes.push(`${result.storyId} passes but no "feat: ${result.storyId} - …" commit was made.`);
      }
      if (!result.storyPasses && result.exitCode === 0 && !progress) {
        notes.push(`The agent exited normally but ${result.storyId} does not pass (no progress ${this.noProgress}/${this.config.noProgressLimit}).`);
      }
      if (result.exitCode !== null && result.exitCode !== 0) {
        notes.push(`The agent exited with code ${result.exitCode} (failure ${this.failures}/${this.config.failureLimit}).`);
      }
    }
    const record: IterationRecord = { iteration: this.iterations, outcome, progress, falseComplete, notes };
    this.history.push(record);
    return record;
  }

  /** A run the agent's limit stopped: the breakers and the maximum stay as they were; the story runs again. */
  private recordLimited(result: IterationResult): IterationRecord {
    this.limited++;
    this.limitedInARow++;
    this.retryStory = result.storyId;
    this.lastLimit = { storyId: result.storyId, ...(result.limit?.resetAt ? { resetAt: result.limit.resetAt } : {}), ...(result.agent ? { agent: result.agent } : {}) };
    const what = result.limit?.kind === 'overloaded' ? 'the provider was overloaded' : `the agent hit its ${result.limit?.kind === 'usage-limit' ? 'usage limit' : 'rate limit'}`;
    const notes = [`${result.storyId}: ${what} (not counted as a failure); it runs again after the wait.`];
    const record: IterationRecord = { iteration: this.iterations, outcome: 'rate-limited', progress: false, falseComplete: false, notes };
    this.history.push(record);
    return record;
  }
}

function stopStep(reason: StopReason, message: string, details: readonly string[] = []): StopStep {
  return { kind: 'stop', reason, message, details };
}

function withCounts(message: string, prd: PrdAnalysis | undefined): string {
  const counts = countsOf(prd);
  return counts ? `${message.replace(/\.$/, '')} ${counts}.` : message;
}

/** "(2/7 stories pass)"; undefined without stories. */
function countsOf(prd: PrdAnalysis | undefined): string | undefined {
  if (!prd || !prd.readable || prd.readiness.counts.total === 0) {
    return undefined;
  }
  const c = prd.readiness.counts;
  return `(${c.done}/${c.total} stories pass)`;
}

function problemLine(label: string, p: Problem): string {
  return `${label}:${p.range.start.line + 1}:${p.range.start.character + 1}: ${p.message}`;
}

function plural(n: number, word: string): string {
  if (n === 1) {
    return `1 ${word}`;
  }
  const last = word.split(' ').pop() ?? word;
  const pl = last.endsWith('y') && !/[aeiou]y$/.test(last) ? `${last.slice(0, -1)}ies` : `${last}s`;
  return `${n} ${word.slice(0, word.length - last.length)}${pl}`;
}
