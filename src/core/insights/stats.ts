/**
 * Run insights (issue 21): the figures of the dashboard and of `ralph-workbench stats`, folded one
 * run record at a time so a reader never has to keep 100,000 records. Per story: attempts, cost and
 * tokens, duration, time waiting on limits; per loop: success rate; per day and over time:
 * cumulative cost; per iteration: duration. Cost and tokens are summed only where the agent
 * reported them: a run without them counts as unknown, never as zero.
 *
 * Time waiting on limits: a rate-limited run waits from its end until its `resetAt` or until the
 * next run of the same story starts, whichever comes first; with neither, its wait is unknown.
 */
import { featureName } from '../runs/archive';
import { type RunOutcome, type RunRecord, type RunTokens, successRate } from '../runs/runs';
import type { FeatureOf } from './features';

export interface StatsFilter {
  /** Only runs of this feature: its branchName, the branch without `ralph/` (featureName), or UNKNOWN_FEATURE. */
  readonly feature?: string;
  /** Only runs that started at or after / at or before these times (ms since the epoch). */
  readonly since?: number;
  readonly until?: number;
}

/** The figures of a set of runs (all of them, or one story's). */
export interface RunFigures {
  /** Runs whose outcome is "passed". */
  readonly passed: number;
  /** Sum of the known costs (US dollars). */
  readonly cost: number;
  /** Runs without a reported cost. */
  readonly unknownCost: number;
  readonly tokens: RunTokens;
  readonly durationMs: number;
  readonly rateLimited: number;
  readonly limitWaitMs: number;
}

export interface StoryStats extends RunFigures {
  readonly storyId: string;
  /** The title of its latest run. */
  readonly title: string;
  readonly attempts: number;
}

export interface LoopStats {
  readonly loopId: string;
  readonly start: string;
  readonly runs: number;
  readonly passed: number;
  /** Rate-limited runs: not in the success rate (they are the limit waits). */
  readonly rateLimited: number;
  /** passed / (runs − rateLimited), 0..1 (0 when no run ran its course). */
  readonly successRate: number;
  readonly cost: number;
  readonly unknownCost: number;
}

export interface DayStats {
  /** `YYYY-MM-DD` (UTC) of the runs' end. */
  readonly day: string;
  readonly runs: number;
  readonly cost: number;
  /** Known cost of this day and every day before it. */
  readonly cumulative: number;
}

/** Cumulative known cost after a run ended (ms since the epoch). */
export interface CostPoint {
  readonly t: number;
  readonly cumulative: number;
}

/** One iteration's duration; when iterations were merged to keep the series short, the longest of them. */
export interface DurationPoint {
  /** 1-based position of the run among the runs counted. */
  readonly index: number;
  readonly storyId: string;
  readonly iteration: number;
  readonly start: string;
  readonly durationMs: number;
  readonly outcome: RunOutcome;
  /** How many iterations this point stands for (1 unless merged). */
  readonly of: number;
}

export interface RunStats extends RunFigures {
  readonly runs: number;
  /** Of the runs that ran their course (rate-limited ones left out): `successRate` in runs.ts. */
  readonly successRate: number;
  /** Rate-limited runs whose wait cannot be told (no reset time, no later run of the story). */
  readonly limitWaitsUnknown: number;
  /** Start of the first and the last run counted. */
  readonly first?: string;
  readonly last?: string;
  /** Every feature seen, with its runs, whatever the filter (for the filter's choices). */
  readonly features: readonly { readonly name: string; readonly runs: number }[];
  /** Runs the filter left out. */
  readonly filteredOut: number;
  /** In the order stories first ran. */
  readonly stories: readonly StoryStats[];
  readonly loops: readonly LoopStats[];
  readonly days: readonly DayStats[];
  /** At most MAX_POINTS points. */
  readonly costOverTime: readonly CostPoint[];
  /** At most MAX_POINTS points. */
  readonly durations: readonly DurationPoint[];
}

/** The series over time and per iteration keep at most this many points (merged in pairs beyond). */
export const MAX_POINTS = 1000;

const NO_TOKENS: RunTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

interface MutableStory {
  storyId: string;
  title: string;
  attempts: number;
  passed: number;
  cost: number;
  unknownCost: number;
  tokens: MutableTokens;
  durationMs: number;
  rateLimited: number;
  limitWaitMs: number;
  /** A rate-limited run of this story still waiting for the next run: its end and reset times. */
  pending?: { end: number; resetAt?: number };
}

type MutableTokens = { input: number; output: number; cacheRead: number; cacheWrite: number };

/**
 * A series that stays short: once it holds 2 × max points, neighbours are merged in pairs, so it
 * covers every value added with at most 2 × max points, each standing for the same number of values.
 */
class Downsampled<T> {
  private points: T[] = [];
  constructor(
    private readonly max: number,
    private readonly merge: (a: T, b: T) => T,
  ) {}
  add(p: T): void {
    this.points.push(p);
    if (this.points.length >= 2 * this.max) {
      const merged: T[] = [];
      for (let i = 0; i + 1 < this.points.length; i += 2) {
        merged.push(this.merge(this.points[i], this.points[i + 1]));
      }
      this.points = merged;
    }
  }
  /** At most max points (the last merge done on a copy). */
  result(): T[] {
    let out = this.points;
    while (out.length > this.max) {
      const merged: T[] = [];
      for (let i = 0; i < out.length; i += 2) {
        merged.push(i + 1 < out.length ? this.merge(out[i], out[i + 1]) : out[i]);
      }
      out = merged;
    }
    return out.slice();
  }
}

function addTokens(into: MutableTokens, t: RunTokens): void {
  into.input += t.input;
  into.output += t.output;
  into.cacheRead += t.cacheRead;
  into.cacheWrite += t.cacheWrite;
}

function timeOf(iso: string | undefined): number | undefined {
  if (iso === undefined) {
    return undefined;
  }
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}

/** Folds run records, in file order, into the figures; `result()` may be called at any time. */
export class StatsAccumulator {
  private runs = 0;
  private passed = 0;
  private cost = 0;
  private unknownCost = 0;
  private readonly tokens: MutableTokens = { ...NO_TOKENS };
  private durationMs = 0;
  private rateLimited = 0;
  private limitWaitMs = 0;
  private filteredOut = 0;
  private first?: string;
  private last?: string;
  private readonly features = new Map<string, number>();
  private readonly stories = new Map<string, MutableStory>();
  private readonly loops = new Map<string, { loopId: string; start: string; runs: number; passed: number; rateLimited: number; cost: number; unknownCost: number }>();
  private readonly days = new Map<string, { runs: number; cost: number }>();
  private readonly costOverTime = new Downsampled<CostPoint>(MAX_POINTS, (_a, b) => b);
  private readonly durations = new Downsampled<DurationPoint>(MAX_POINTS, (a, b) => ({ ...(b.durationMs > a.durationMs ? b : a), of: a.of + b.of }));

  constructor(
    private readonly featureOf: FeatureOf,
    private readonly filter: StatsFilter = {},
  ) {}

  add(r: RunRecord): void {
    const feature = this.featureOf(r);
    this.features.set(feature, (this.features.get(feature) ?? 0) + 1);
    const start = Date.parse(r.start);
    const f = this.filter;
    if ((f.feature !== undefined && !isFeature(feature, f.feature)) || (f.since !== undefined && start < f.since) || (f.until !== undefined && start > f.until)) {
      this.filteredOut++;
      return;
    }
    this.runs++;
    this.first ??= r.start;
    this.last = r.start;
    const passed = r.outcome === 'passed' ? 1 : 0;
    this.passed += passed;
    const known = r.cost !== undefined;
    const cost = r.cost ?? 0;
    this.cost += cost;
    this.unknownCost += known ? 0 : 1;
    if (r.tokens) {
      addTokens(this.tokens, r.tokens);
    }
    const duration = Math.max(0, r.durationMs);
    this.durationMs += duration;
    const endTime = timeOf(r.end) ?? start + duration;

    const story = this.storyOf(r);
    story.title = r.storyTitle || story.title;
    story.attempts++;
    story.passed += passed;
    story.cost += cost;
    story.unknownCost += known ? 0 : 1;
    if (r.tokens) {
      addTokens(story.tokens, r.tokens);
    }
    story.durationMs += duration;
    if (story.pending) {
      // The next run of a rate-limited story ends its wait (unless the reset came first).
      const wait = Math.max(0, Math.min(story.pending.resetAt ?? Infinity, start) - story.pending.end);
      story.limitWaitMs += wait;
      this.limitWaitMs += wait;
      story.pending = undefined;
    }
    if (r.outcome === 'rate-limited') {
      this.rateLimited++;
      story.rateLimited++;
      story.pending = { end: endTime, resetAt: timeOf(r.resetAt) };
    }

    const loop = this.loops.get(r.loopId) ?? { loopId: r.loopId, start: r.start, runs: 0, passed: 0, rateLimited: 0, cost: 0, unknownCost: 0 };
    loop.runs++;
    loop.passed += passed;
    loop.rateLimited += r.outcome === 'rate-limited' ? 1 : 0;
    loop.cost += cost;
    loop.unknownCost += known ? 0 : 1;
    this.loops.set(r.loopId, loop);

    // The recorder writes UTC times (toISOString): their day is their first ten characters.
    const day = r.end.length === 24 && r.end.endsWith('Z') ? r.end.slice(0, 10) : new Date(endTime).toISOString().slice(0, 10);
    const d = this.days.get(day) ?? { runs: 0, cost: 0 };
    d.runs++;
    d.cost += cost;
    this.days.set(day, d);

    this.costOverTime.add({ t: endTime, cumulative: this.cost });
    this.durations.add({ index: this.runs, storyId: r.storyId, iteration: r.iteration, start: r.start, durationMs: duration, outcome: r.outcome, of: 1 });
  }

  private storyOf(r: RunRecord): MutableStory {
    let s = this.stories.get(r.storyId);
    if (!s) {
      s = { storyId: r.storyId, title: r.storyTitle, attempts: 0, passed: 0, cost: 0, unknownCost: 0, tokens: { ...NO_TOKENS }, durationMs: 0, rateLimited: 0, limitWaitMs: 0 };
      this.stories.set(r.storyId, s);
    }
    return s;
  }

  result(): RunStats {
    let limitWaitMs = this.limitWaitMs;
    let limitWaitsUnknown = 0;
    const stories: StoryStats[] = [];
    for (const s of this.stories.values()) {
      // A wait no later run ended lasts until the printed reset, when there was one.
      const open = s.pending ? (s.pending.resetAt !== undefined ? Math.max(0, s.pending.resetAt - s.pending.end) : undefined) : 0;
      if (open === undefined) {
        limitWaitsUnknown++;
      }
      limitWaitMs += open ?? 0;
      stories.push({
        storyId: s.storyId,
        title: s.title,
        attempts: s.attempts,
        passed: s.passed,
        cost: s.cost,
        unknownCost: s.unknownCost,
        tokens: { ...s.tokens },
        durationMs: s.durationMs,
        rateLimited: s.rateLimited,
        limitWaitMs: s.limitWaitMs + (open ?? 0),
      });
    }
    let cumulative = 0;
    const days = [...this.days.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([day, d]) => {
        cumulative += d.cost;
        return { day, runs: d.runs, cost: d.cost, cumulative };
      });
    return {
      runs: this.runs,
      passed: this.passed,
      successRate: successRate(this.passed, this.runs, this.rateLimited),
      cost: this.cost,
      unknownCost: this.unknownCost,
      tokens: { ...this.tokens },
      durationMs: this.durationMs,
      rateLimited: this.rateLimited,
      limitWaitMs,
      limitWaitsUnknown,
      first: this.first,
      last: this.last,
      features: [...this.features.entries()].map(([name, runs]) => ({ name, runs })),
      filteredOut: this.filteredOut,
      stories,
      loops: [...this.loops.values()].map((l) => ({ ...l, successRate: successRate(l.passed, l.runs, l.rateLimited) })),
      days,
      costOverTime: this.costOverTime.result(),
      durations: this.durations.result(),
    };
  }
}

/** `ralph/user-auth` is asked for as itself or as `user-auth`. */
export function isFeature(branchName: string, asked: string): boolean {
  return branchName === asked || featureName(branchName) === asked;
}

/** The figures of records at hand (the extension's runs snapshot; tests). */
export function computeStats(runs: Iterable<RunRecord>, featureOf: FeatureOf, filter: StatsFilter = {}): RunStats {
  const acc = new StatsAccumulator(featureOf, filter);
  for (const r of runs) {
    acc.add(r);
  }
  return acc.result();
}

/**
 * A date bound of a filter: `YYYY-MM-DD` (UTC; as an upper bound, the whole day) or an ISO 8601
 * time. A message when it is neither.
 */
export function parseDateBound(text: string, bound: 'since' | 'until'): number | string {
  const s = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) {
    const t = Date.parse(`${s}T00:00:00Z`);
    if (!Number.isNaN(t) && new Date(t).toISOString().startsWith(s)) {
      return bound === 'since' ? t : t + 86_400_000 - 1;
    }
  } else if (/^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s))) {
    return Date.parse(s);
  }
  return `--${bound} needs a date such as 2026-01-31 or 2026-01-31T09:00:00Z, not "${s}"`;
}
