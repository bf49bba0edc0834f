/**
 * The parallel scheduler's one decision (issue 19): given the ready stories in schedule order, the
 * stories whose work is not on the feature branch yet, the slots, the same-file guard and each
 * story's counters, which stories start now and why each other ready story waits. Pure and
 * stateless: the parallel loop (parallelLoop.ts) calls it after every event.
 *
 * Per story, the first rule that holds decides, in this order:
 *   skipped by the user → needs you (a breaker tripped: `failureLimit` failed attempts in a row, or
 *   `noProgressLimit` attempts in a row without the story passing; or an open Needs You item) →
 *   the loop is stopping → the iteration limit (counted across slots) → the same-file guard (it
 *   overlaps a story whose work is unmerged, or one started by this decision) → every slot taken →
 *   start. The guard comes before the slots because it is the more specific reason: a story that
 *   overlaps still waits when a slot frees.
 */
import { overlapWith } from './sameFile';
import type { NeedsYouWhy, WaitReason } from './waitReasons';

export interface ParallelConfig {
  /** Agents at once (`ralph.parallel.maxAgents`, default 3). */
  readonly maxAgents: number;
  /** Iterations (agent starts) at most, counted across slots (default 10). */
  readonly maxIterations: number;
  /** A story needs you after this many failed attempts in a row (default 2). */
  readonly failureLimit: number;
  /** A story needs you after this many attempts in a row that did not make it pass (default 2). */
  readonly noProgressLimit: number;
  /** Let stories predicted to change the same file run at once (`ralph.parallel.allowOverlap`). */
  readonly allowOverlap: boolean;
  /** The loop stops after this many rate-limited runs in a row across the slots (ralph.agent.maxLimitedInARow, default 5; 0: never). */
  readonly maxLimitedInARow?: number;
}

export const DEFAULT_PARALLEL_CONFIG: ParallelConfig = { maxAgents: 3, maxIterations: 10, failureLimit: 2, noProgressLimit: 2, allowOverlap: false, maxLimitedInARow: 5 };

/** A story's attempts so far (the breakers are per story). */
export interface StoryCounters {
  readonly attempts: number;
  readonly consecutiveFailures: number;
  readonly consecutiveNoProgress: number;
}

export const NO_ATTEMPTS: StoryCounters = { attempts: 0, consecutiveFailures: 0, consecutiveNoProgress: 0 };

export interface Holder {
  readonly storyId: string;
  /** Its predicted files (normalised paths). */
  readonly files: readonly string[];
}

export interface PlanInput {
  /** Ready stories in schedule order that are neither running nor waiting for their merge. */
  readonly ready: readonly string[];
  /** Stories whose work is not on the feature branch yet (running, or done and waiting for the merge queue), oldest first. */
  readonly holders: readonly Holder[];
  /** Agents running now (a story waiting for its merge holds no slot). */
  readonly running: number;
  /** Agent starts so far, across slots. */
  readonly iterations: number;
  readonly config: ParallelConfig;
  /** The predicted files of a story. */
  readonly filesOf: (storyId: string) => readonly string[];
  readonly countersOf: (storyId: string) => StoryCounters;
  /** Stories with an open Needs You item (a conflict, a failed check, a question, …). */
  readonly needsYou: (storyId: string) => Extract<WaitReason, { kind: 'needs-you' }> | undefined;
  readonly skipped: (storyId: string) => boolean;
  /** A stop was requested: nothing new starts. */
  readonly stopping: boolean;
  /** An agent's limit is being waited out: nothing starts. */
  readonly limited?: boolean;
}

export interface Plan {
  /** Stories to start now, in schedule order. */
  readonly start: readonly string[];
  /** Why each other ready story waits, in schedule order. */
  readonly waits: readonly { readonly storyId: string; readonly reason: WaitReason }[];
}

/** The breaker a story's counters trip, if any (failures first, as in the serial loop). */
export function trippedBreaker(c: StoryCounters, config: Pick<ParallelConfig, 'failureLimit' | 'noProgressLimit'>): { why: NeedsYouWhy; count: number } | undefined {
  if (c.consecutiveFailures >= config.failureLimit) {
    return { why: 'failures', count: c.consecutiveFailures };
  }
  if (c.consecutiveNoProgress >= config.noProgressLimit) {
    return { why: 'no-progress', count: c.consecutiveNoProgress };
  }
  return undefined;
}

/** Which ready stories start now, and why the others wait. */
export function planStarts(input: PlanInput): Plan {
  const { config } = input;
  const start: string[] = [];
  const waits: { storyId: string; reason: WaitReason }[] = [];
  const holders: Holder[] = [...input.holders];
  let running = input.running;
  let iterations = input.iterations;
  for (const storyId of input.ready) {
    const reason = waitReason(storyId);
    if (reason) {
      waits.push({ storyId, reason });
      continue;
    }
    start.push(storyId);
    holders.push({ storyId, files: input.filesOf(storyId) });
    running++;
    iterations++;
  }
  return { start, waits };

  function waitReason(storyId: string): WaitReason | undefined {
    if (input.skipped(storyId)) {
      return { kind: 'skipped' };
    }
    const open = input.needsYou(storyId);
    if (open) {
      return open;
    }
    const tripped = trippedBreaker(input.countersOf(storyId), config);
    if (tripped) {
      return { kind: 'needs-you', ...tripped };
    }
    if (input.stopping) {
      return { kind: 'stopping' };
    }
    if (input.limited) {
      return { kind: 'rate-limited' };
    }
    if (iterations >= config.maxIterations) {
      return { kind: 'iteration-limit', maxIterations: config.maxIterations };
    }
    const overlap = config.allowOverlap ? undefined : overlapWith(input.filesOf(storyId), holders);
    if (overlap) {
      return overlap;
    }
    if (running >= config.maxAgents) {
      return { kind: 'slot-full', running, maxAgents: config.maxAgents };
    }
    return undefined;
  }
}
