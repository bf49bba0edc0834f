/**
 * Which stories are done, ready or blocked, which one runs next, and why nothing can run when
 * that happens: the schedule (schedule.ts, where the rules are) as the tree, the CLI, the status
 * bar and the loop read it, one state per story, with the sentences that explain a stuck backlog.
 */
import type { Story } from './model';
import { formatCycle, shortId } from './problems';
import { buildStoryGraph, type StoryGraph } from './graph';
import { computeSchedule, type Schedule } from './schedule';

export type StoryStatus = 'done' | 'ready' | 'blocked';

export interface StoryState {
  readonly story: Story;
  readonly status: StoryStatus;
  /** Ids this story still waits on (not passing, or not a story at all), in blockedBy order. */
  readonly waitingOn: readonly string[];
  /** Ids of the stories whose blockedBy names this one. */
  readonly blocks: readonly string[];
  readonly isNext: boolean;
  /** True when the story lies on a dependency cycle (or is blocked by itself). */
  readonly inCycle: boolean;
  /** Position in the projected run order (0 = next), or undefined when it can never run. */
  readonly runIndex?: number;
}

export type PlanState = 'ready' | 'complete' | 'blocked' | 'empty';

export interface Readiness {
  /** One state per story, in file order. */
  readonly states: readonly StoryState[];
  readonly next?: StoryState;
  /** Ready stories in run order (priority, then file order). */
  readonly ready: readonly StoryState[];
  /** ready: a story can run; complete: every story passes; blocked: stories remain but none is ready; empty: no stories. */
  readonly state: PlanState;
  /**
   * Pending stories in the order a loop would run them if each one passed, then the stories that
   * can never run (they wait on a cycle or an unknown id), then the done ones.
   */
  readonly order: readonly StoryState[];
  /** Blocked stories and what they wait on. */
  readonly blocked: readonly { id: string; waitingOn: readonly string[] }[];
  /** When stories can never run: one sentence per root cause (cycle, unknown id, self-dependency). */
  readonly explanation: readonly string[];
  readonly counts: { readonly total: number; readonly done: number; readonly ready: number; readonly blocked: number };
  /** The schedule these states were read from (waves, unschedulable stories, cycles: the task graph's too). */
  readonly schedule: Schedule;
}

export function computeReadiness(stories: readonly Story[], graph: StoryGraph = buildStoryGraph(stories), cycles: readonly (readonly string[])[] = [], fileName = 'prd.json'): Readiness {
  const schedule = computeSchedule(stories, graph);
  const { waitingOn, runIndex } = schedule;
  const blocksOf: string[][] = stories.map(() => []);
  stories.forEach((s, i) => {
    for (const j of graph.adj[i]) {
      blocksOf[j].push(s.id);
    }
  });

  const states: StoryState[] = stories.map((story, i) => ({
    story,
    status: story.passes ? 'done' : waitingOn[i].length === 0 ? 'ready' : 'blocked',
    waitingOn: waitingOn[i],
    blocks: blocksOf[i],
    isNext: i === schedule.next,
    inCycle: schedule.inCycle[i],
    runIndex: runIndex[i] === -1 ? undefined : runIndex[i],
  }));

  // Positions in `stories`, not story.index: that is the place in userStories, which differs
  // when the array holds something other than objects.
  const stuck = schedule.unschedulable.map((i) => states[i]);
  const order = [...schedule.runOrder.map((i) => states[i]), ...stuck, ...states.filter((s) => s.story.passes)];

  const n = stories.length;
  const done = states.filter((s) => s.status === 'done').length;
  const blocked = states.filter((s) => s.status === 'blocked');
  const state: PlanState = n === 0 ? 'empty' : done === n ? 'complete' : schedule.ready.length > 0 ? 'ready' : 'blocked';

  return {
    states,
    next: schedule.next >= 0 ? states[schedule.next] : undefined,
    ready: schedule.ready.map((i) => states[i]),
    state,
    order,
    blocked: blocked.map((s) => ({ id: s.story.id, waitingOn: s.waitingOn })),
    explanation: explainStuck(stuck, graph, cycles, fileName),
    counts: { total: n, done, ready: schedule.ready.length, blocked: blocked.length },
    schedule,
  };
}

/** Root causes of stories that can never run: cycles, self-dependencies, unknown ids, then the chains behind them. */
function explainStuck(stuck: readonly StoryState[], graph: StoryGraph, cycles: readonly (readonly string[])[], fileName: string): string[] {
  if (stuck.length === 0) {
    return [];
  }
  const out: string[] = [];
  const stuckIds = new Set(stuck.map((s) => s.story.id));
  const inCycle = new Set<string>();
  for (const cycle of cycles) {
    if (cycle.some((id) => stuckIds.has(id))) {
      out.push(`${formatCycle(cycle)} is a dependency cycle: none of these stories can become ready until one blockedBy entry is removed.`);
      for (const id of cycle) {
        inCycle.add(id);
      }
    }
  }
  for (const s of stuck) {
    const id = s.story.id;
    if (s.story.blockedBy.some((r) => r.id === id)) {
      out.push(`${shortId(id)} is blocked by itself.`);
    }
    const unknown = s.waitingOn.filter((w) => !graph.byId.has(w));
    if (unknown.length > 0) {
      out.push(`${shortId(id)} waits on ${unknown.map((u) => `"${shortId(u)}"`).join(', ')}, which ${unknown.length === 1 ? 'is not a story' : 'are not stories'} in ${fileName}.`);
    }
  }
  const downstream = stuck.filter(
    (s) => !inCycle.has(s.story.id) && s.waitingOn.every((w) => graph.byId.has(w) && w !== s.story.id),
  );
  for (const s of downstream) {
    out.push(`${shortId(s.story.id)} waits on ${s.waitingOn.map(shortId).join(', ')}, which can never become ready.`);
  }
  return out;
}
