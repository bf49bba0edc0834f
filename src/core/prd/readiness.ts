/**
 * Which stories are done, ready or blocked, which one runs next, and why nothing can run when
 * that happens. Rules (SPEC): a story is ready when it does not pass and every id in blockedBy
 * names a passing story; the next story is the ready one with the lowest priority, ties in file order.
 */
import { MinHeap } from '../heap';
import type { Story } from './model';
import { formatCycle, shortId } from './problems';
import type { StoryGraph } from './graph';
import { buildStoryGraph } from './graph';

export type StoryStatus = 'done' | 'ready' | 'blocked';

export interface StoryState {
  readonly story: Story;
  readonly status: StoryStatus;
  /** Ids this story still waits on (not passing, or not a story at all), in blockedBy order. */
  readonly waitingOn: readonly string[];
  /** Ids of the stories whose blockedBy names this one. */
  readonly blocks: readonly string[];
  readonly isNext: boolean;
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
}

export function computeReadiness(stories: readonly Story[], graph: StoryGraph = buildStoryGraph(stories), cycles: readonly (readonly string[])[] = [], fileName = 'prd.json'): Readiness {
  const n = stories.length;
  const passingIds = new Set<string>();
  for (const s of stories) {
    if (s.passes) {
      passingIds.add(s.id);
    }
  }
  const waiting: string[][] = stories.map((s) => {
    const out: string[] = [];
    for (const ref of s.blockedBy) {
      if (!passingIds.has(ref.id) && !out.includes(ref.id)) {
        out.push(ref.id);
      }
    }
    return out;
  });

  // Priorities side by side: the heap compares them often, and the story objects are far apart in memory.
  const priority = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    priority[i] = stories[i].priority;
  }
  const cmp = (a: number, b: number): number => priority[a] - priority[b] || a - b;
  const ready: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!stories[i].passes && waiting[i].length === 0) {
      ready.push(i);
    }
  }
  ready.sort(cmp);

  // Projected run order: Kahn's algorithm over pending stories with a priority queue.
  // A pending story becomes runnable when every id it waits on is a story that ran before it.
  const remaining = new Int32Array(n);
  const unresolvable = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (stories[i].passes) {
      continue;
    }
    for (const id of waiting[i]) {
      const j = graph.byId.get(id);
      if (j === undefined || j === i) {
        unresolvable[i] = 1;
      } else {
        remaining[i]++;
      }
    }
  }
  const runIndex = new Int32Array(n).fill(-1);
  const heap = new MinHeap<number>(cmp);
  for (const i of ready) {
    heap.push(i);
  }
  const runOrder: number[] = [];
  const ranWaits = new Set<string>();
  while (heap.size > 0) {
    const i = heap.pop() as number;
    runIndex[i] = runOrder.length;
    runOrder.push(i);
    // Stories that name this id (possibly several times through duplicates) get one step closer.
    const id = stories[i].id;
    if (ranWaits.has(id) || passingIds.has(id)) {
      continue;
    }
    ranWaits.add(id);
    const first = graph.byId.get(id);
    if (first === undefined) {
      continue;
    }
    for (const d of graph.dependents[first]) {
      if (stories[d].passes || runIndex[d] !== -1) {
        continue;
      }
      if (--remaining[d] === 0 && !unresolvable[d]) {
        heap.push(d);
      }
    }
  }

  const blocksOf: string[][] = stories.map(() => []);
  stories.forEach((s, i) => {
    for (const j of graph.adj[i]) {
      blocksOf[j].push(s.id);
    }
  });

  const nextIndex = ready.length > 0 ? ready[0] : -1;
  const states: StoryState[] = stories.map((story, i) => ({
    story,
    status: story.passes ? 'done' : waiting[i].length === 0 ? 'ready' : 'blocked',
    waitingOn: story.passes ? [] : waiting[i],
    blocks: blocksOf[i],
    isNext: i === nextIndex,
    runIndex: runIndex[i] === -1 ? undefined : runIndex[i],
  }));

  // Positions in `stories`, not story.index: that is the place in userStories, which differs
  // when the array holds something other than objects.
  const stuckAt: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!stories[i].passes && runIndex[i] === -1) {
      stuckAt.push(i);
    }
  }
  stuckAt.sort(cmp);
  const stuck = stuckAt.map((i) => states[i]);
  const order = [...runOrder.map((i) => states[i]), ...stuck, ...states.filter((s) => s.story.passes)];

  const done = states.filter((s) => s.status === 'done').length;
  const blocked = states.filter((s) => s.status === 'blocked');
  const state: PlanState = n === 0 ? 'empty' : done === n ? 'complete' : ready.length > 0 ? 'ready' : 'blocked';

  return {
    states,
    next: nextIndex >= 0 ? states[nextIndex] : undefined,
    ready: ready.map((i) => states[i]),
    state,
    order,
    blocked: blocked.map((s) => ({ id: s.story.id, waitingOn: s.waitingOn })),
    explanation: explainStuck(stuck, graph, cycles, fileName),
    counts: { total: n, done, ready: ready.length, blocked: blocked.length },
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
