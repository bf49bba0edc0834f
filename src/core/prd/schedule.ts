/**
 * THE schedule of a PRD, one implementation of each rule (SPEC, "The rules that matter" and "The
 * task graph"): which stories are ready and which one runs next, the order a loop would run them,
 * the waves, the stories that can never run, the critical path, the stories in a cycle, what each
 * story unblocks, and whether a new dependency would close a cycle. readiness.ts (the run order as
 * the tree, the CLI and the loop read it) and taskGraph/model.ts (the picture) are built on it.
 *
 * A story is ready when it does not pass and every id it waits on names a passing story; the next
 * one is the ready story with the lowest priority, ties in file order. The run order is Kahn's
 * algorithm with that priority queue; it is a topological order, so the same pass gives the
 * waves: wave 0 is the ready stories, wave k the unfinished stories whose unfinished dependencies
 * all lie in earlier waves (1 + the deepest unfinished blocker). A story in a cycle, blocked by
 * itself or by an unknown id, and every story behind one, is never reached: unschedulable.
 */
import { stronglyConnectedComponents } from '../graph';
import { MinHeap } from '../heap';
import { buildStoryGraph, type StoryGraph } from './graph';
import type { Story } from './model';

export interface Schedule {
  readonly graph: StoryGraph;
  /** Per story: the ids it still waits on (not passing, or not a story at all), in blockedBy order; none for a done story. */
  readonly waitingOn: readonly (readonly string[])[];
  /** Per unfinished story: the ids it waits on that name no story, or itself (it can never run). */
  readonly unresolved: readonly (readonly string[])[];
  /** Ready stories (indices) in run order: priority, then file order. */
  readonly ready: readonly number[];
  /** The story a loop runs next, or -1. */
  readonly next: number;
  /** Unfinished stories in the order a loop would run them if each one passed. */
  readonly runOrder: readonly number[];
  /** runIndex[i]: the position of story i in runOrder, -1 when it is done or can never run. */
  readonly runIndex: Int32Array;
  /** wave[i]: the wave of an unfinished, schedulable story, -1 otherwise. */
  readonly wave: Int32Array;
  /** Story indices per wave, each wave in run order. */
  readonly waves: readonly (readonly number[])[];
  /** Unfinished stories that can never run, in run order. */
  readonly unschedulable: readonly number[];
  /** The strongly connected components of the dependency graph (a cycle's stories share one); component[i] is story i's. */
  readonly components: readonly (readonly number[])[];
  readonly component: Int32Array;
  /** inCycle[i]: story i lies on a dependency cycle (its component has more than one story), or is blocked by itself. */
  readonly inCycle: readonly boolean[];
  /** Run order as a comparison: priority, then file order. */
  readonly compare: (a: number, b: number) => number;
}

export function computeSchedule(stories: readonly Story[], graph: StoryGraph = buildStoryGraph(stories)): Schedule {
  const n = stories.length;
  const passingIds = new Set<string>();
  for (const s of stories) {
    if (s.passes) {
      passingIds.add(s.id);
    }
  }
  const waitingOn: string[][] = stories.map((s) => {
    const out: string[] = [];
    if (!s.passes) {
      for (const ref of s.blockedBy) {
        if (!passingIds.has(ref.id) && !out.includes(ref.id)) {
          out.push(ref.id);
        }
      }
    }
    return out;
  });

  // Priorities side by side: the heap compares them often, and the story objects are far apart in memory.
  const priority = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    priority[i] = stories[i].priority;
  }
  const compare = (a: number, b: number): number => priority[a] - priority[b] || a - b;
  const ready: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!stories[i].passes && waitingOn[i].length === 0) {
      ready.push(i);
    }
  }
  ready.sort(compare);

  // A pending story becomes runnable when every id it waits on is a story that ran before it.
  const remaining = new Int32Array(n);
  const unresolved: string[][] = stories.map(() => []);
  for (let i = 0; i < n; i++) {
    for (const id of waitingOn[i]) {
      const j = graph.byId.get(id);
      if (j === undefined || j === i) {
        unresolved[i].push(id);
      } else {
        remaining[i]++;
      }
    }
  }
  const runIndex = new Int32Array(n).fill(-1);
  const wave = new Int32Array(n).fill(-1);
  const heap = new MinHeap<number>(compare);
  for (const i of ready) {
    wave[i] = 0;
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
      // Provisional until d is queued: by then every story it waits on has run.
      wave[d] = Math.max(wave[d], wave[i] + 1);
      if (--remaining[d] === 0 && unresolved[d].length === 0) {
        heap.push(d);
      }
    }
  }

  const unschedulable: number[] = [];
  let waveCount = 0;
  for (let i = 0; i < n; i++) {
    if (runIndex[i] !== -1) {
      waveCount = Math.max(waveCount, wave[i] + 1);
    } else {
      wave[i] = -1; // done, or never queued (a provisional wave)
      if (!stories[i].passes) {
        unschedulable.push(i);
      }
    }
  }
  unschedulable.sort(compare);
  const waves: number[][] = Array.from({ length: waveCount }, () => []);
  for (const v of runOrder) {
    waves[wave[v]].push(v);
  }
  for (const w of waves) {
    w.sort(compare);
  }

  const components = stronglyConnectedComponents(graph.adj);
  const component = new Int32Array(n);
  components.forEach((c, k) => {
    for (const v of c) {
      component[v] = k;
    }
  });
  const inCycle = stories.map((s, i) => components[component[i]].length > 1 || (s.id !== '' && s.blockedBy.some((r) => graph.byId.get(r.id) === i)));

  return { graph, waitingOn, unresolved, ready, next: ready.length > 0 ? ready[0] : -1, runOrder, runIndex, wave, waves, unschedulable, components, component, inCycle, compare };
}

/**
 * The ready rule of a schedule, followed as stories pass one at a time (the parallel loop marks a
 * story passing when its merge lands). Not a second schedule: it starts from `computeSchedule`'s
 * `waitingOn`, graph and order, and at every step `ready()` equals `computeSchedule(...).ready` for
 * the same stories with those passes set (a property test holds them equal). `pass` costs the
 * number of stories that wait on the story, not a new schedule.
 */
export class ReadyTracker {
  /** Per story: how many of the ids it waits on do not pass yet (an unknown id never passes). */
  private readonly remaining: Int32Array;
  private readonly passed: Uint8Array;
  private readonly passingIds = new Set<string>();
  /** Ready stories in run order (the schedule's compare). */
  private readonly list: number[];

  constructor(
    private readonly stories: readonly Pick<Story, 'id' | 'passes'>[],
    private readonly schedule: Schedule,
  ) {
    const n = stories.length;
    this.remaining = new Int32Array(n);
    this.passed = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      if (stories[i].passes) {
        this.passed[i] = 1;
        this.passingIds.add(stories[i].id);
      } else {
        this.remaining[i] = schedule.waitingOn[i].length;
      }
    }
    this.list = [...schedule.ready];
  }

  /** Ready stories, in run order: not passing, nothing left to wait on. */
  ready(): number[] {
    return [...this.list];
  }

  isReady(i: number): boolean {
    return this.passed[i] === 0 && this.remaining[i] === 0;
  }

  passes(i: number): boolean {
    return this.passed[i] === 1;
  }

  /** Marks story i passing; returns the stories that became ready, in run order. */
  pass(i: number): number[] {
    if (this.passed[i] === 1) {
      return [];
    }
    this.passed[i] = 1;
    const at = this.list.indexOf(i);
    if (at !== -1) {
      this.list.splice(at, 1);
    }
    const id = this.stories[i].id;
    if (this.passingIds.has(id)) {
      return [];
    }
    this.passingIds.add(id);
    const first = this.schedule.graph.byId.get(id);
    const out: number[] = [];
    const release = (d: number) => {
      if (this.passed[d] === 0 && --this.remaining[d] === 0) {
        out.push(d);
      }
    };
    if (first !== undefined) {
      // The stories that name this id: edges go to the first story with it, as in computeSchedule;
      // the graph has no self-loop, so a first story that names its own id is released here (a
      // later duplicate of the id can pass for it).
      for (const d of this.schedule.graph.dependents[first]) {
        release(d);
      }
      if (this.schedule.waitingOn[first].includes(id)) {
        release(first);
      }
    }
    out.sort(this.schedule.compare);
    for (const d of out) {
      this.list.splice(this.insertionPoint(d), 0, d);
    }
    return out;
  }

  private insertionPoint(v: number): number {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.schedule.compare(this.list[mid], v) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}

/** A longest chain of unfinished, schedulable stories along dependencies (ties: run order), first to run first. */
export function criticalPath(schedule: Schedule): number[] {
  const { runIndex, compare } = schedule;
  const blockers = schedule.graph.adj;
  const length = new Int32Array(runIndex.length);
  const via = new Int32Array(runIndex.length).fill(-1);
  let end = -1;
  // Along the run order, a chain only steps back to stories that ran earlier: every length used is
  // final, and the chain ends (duplicate ids can let two stories that name each other both run).
  for (const v of schedule.runOrder) {
    let best = -1;
    for (const j of blockers[v]) {
      if (runIndex[j] !== -1 && runIndex[j] < runIndex[v] && (best === -1 || length[j] > length[best] || (length[j] === length[best] && compare(j, best) < 0))) {
        best = j;
      }
    }
    length[v] = best === -1 ? 1 : length[best] + 1;
    via[v] = best;
    if (end === -1 || length[v] > length[end] || (length[v] === length[end] && compare(v, end) < 0)) {
      end = v;
    }
  }
  const path: number[] = [];
  for (let v = end; v !== -1; v = via[v]) {
    path.push(v);
  }
  return path.reverse();
}

/**
 * What each story unblocks: direct[i], the unfinished stories with an edge from i; total[i], the
 * unfinished stories reachable from i along dependents (i itself excluded). Done stories unblock
 * nothing: nothing waits on them. Reachability is a bitset per strongly connected component,
 * merged in reverse topological order (O(V·E/32)).
 */
export function unblocksOf(stories: readonly Story[], schedule: Schedule): { direct: Int32Array; total: Int32Array } {
  const n = stories.length;
  const { components, component } = schedule;
  const dependents = schedule.graph.dependents;
  const direct = new Int32Array(n);
  const total = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (stories[i].passes) {
      continue;
    }
    for (const d of dependents[i]) {
      if (!stories[d].passes) {
        direct[i]++;
      }
    }
  }
  const words = (n + 31) >>> 5;
  const reach: Uint32Array[] = new Array<Uint32Array>(components.length);
  // Components such that every dependent component comes before its blockers.
  for (const k of condensationOrder(n, dependents, components, component)) {
    const bits = new Uint32Array(words);
    for (const v of components[k]) {
      for (const d of dependents[v]) {
        const kd = component[d];
        if (kd !== k) {
          const other = reach[kd];
          for (let w = 0; w < words; w++) {
            bits[w] |= other[w];
          }
        }
        if (!stories[d].passes) {
          bits[d >>> 5] |= 1 << (d & 31);
        }
      }
    }
    reach[k] = bits;
  }
  for (let i = 0; i < n; i++) {
    if (stories[i].passes) {
      continue;
    }
    const bits = reach[component[i]];
    let count = 0;
    for (let w = 0; w < words; w++) {
      count += popcount(bits[w]);
    }
    // A story in a cycle reaches itself: it does not unblock itself.
    if (bits[i >>> 5] & (1 << (i & 31))) {
      count--;
    }
    total[i] = count;
  }
  return { direct, total };
}

/** Components ordered so that a component comes after every component it points to (dependents first). */
function condensationOrder(n: number, dependents: readonly (readonly number[])[], components: readonly (readonly number[])[], component: Int32Array): number[] {
  const c = components.length;
  const outdeg = new Int32Array(c);
  const preds: number[][] = Array.from({ length: c }, () => []);
  for (let v = 0; v < n; v++) {
    for (const d of dependents[v]) {
      const a = component[v];
      const b = component[d];
      if (a !== b) {
        outdeg[a]++;
        preds[b].push(a);
      }
    }
  }
  const out: number[] = [];
  for (let k = 0; k < c; k++) {
    if (outdeg[k] === 0) {
      out.push(k);
    }
  }
  for (let head = 0; head < out.length; head++) {
    for (const p of preds[out[head]]) {
      if (--outdeg[p] === 0) {
        out.push(p);
      }
    }
  }
  return out;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Nodes that `start` waits on, directly or not (ancestors), and nodes that wait on it (descendants). */
export function lineage(graph: { readonly blockers: readonly (readonly number[])[]; readonly dependents: readonly (readonly number[])[] }, start: number): { ancestors: Set<number>; descendants: Set<number> } {
  const walk = (adj: readonly (readonly number[])[]): Set<number> => {
    const seen = new Set<number>();
    const stack = [start];
    while (stack.length > 0) {
      const v = stack.pop() as number;
      for (const w of adj[v]) {
        if (!seen.has(w) && w !== start) {
          seen.add(w);
          stack.push(w);
        }
      }
    }
    return seen;
  };
  return { ancestors: walk(graph.blockers), descendants: walk(graph.dependents) };
}

/**
 * The chain that a new edge `blocker → story` would close, as indices from the story back to
 * itself (story → … → blocker → story), or undefined when the edge is safe.
 */
export function cycleClosedBy(graph: { readonly dependents: readonly (readonly number[])[] }, storyIndex: number, blockerIndex: number): number[] | undefined {
  return cycleCloser(graph, storyIndex)(blockerIndex);
}

/**
 * `cycleClosedBy` for one story and any blocker: the story's dependents are walked once, so asking
 * about every other story (the "Add blocker…" offer) stays linear.
 */
export function cycleCloser(graph: { readonly dependents: readonly (readonly number[])[] }, storyIndex: number): (blockerIndex: number) => number[] | undefined {
  // The new edge closes a cycle when the blocker already (transitively) waits on the story.
  const prev = new Map<number, number>([[storyIndex, -1]]);
  const queue = [storyIndex];
  for (let head = 0; head < queue.length; head++) {
    for (const d of graph.dependents[queue[head]]) {
      if (!prev.has(d)) {
        prev.set(d, queue[head]);
        queue.push(d);
      }
    }
  }
  return (blockerIndex) => {
    if (blockerIndex === storyIndex) {
      return [storyIndex, storyIndex];
    }
    if (!prev.has(blockerIndex)) {
      return undefined;
    }
    const path: number[] = [];
    for (let x = blockerIndex; x !== -1; x = prev.get(x) as number) {
      path.push(x);
    }
    path.reverse();
    return [...path, storyIndex];
  };
}
