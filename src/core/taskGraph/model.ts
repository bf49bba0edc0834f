/**
 * The task graph of a PRD: one node per story with its state, edges from blocker to blocked, the
 * parallel **waves** of unfinished work, the **critical path** (a longest chain of unfinished
 * stories) and, per story, how many unfinished stories wait on it ("unblocks"). Pure and
 * O(V + E) apart from the transitive unblocks count (bitsets over the condensation, O(V·E/32)).
 *
 * Wave 0: unfinished stories whose dependencies all pass. Wave k: unfinished stories whose
 * unfinished dependencies all lie in earlier waves (so wave = 1 + the deepest unfinished blocker).
 * Stories in a cycle, blocked by themselves or by an unknown id, and every story behind them, can
 * never run: they are "unschedulable", listed and drawn, never dropped.
 */
import { stronglyConnectedComponents } from '../graph';
import type { Story } from '../prd/document';
import type { PrdAnalysis } from '../prd/index';
import { buildStoryGraph } from '../prd/graph';

/** done · ready (wave 0) · next (the ready story a loop runs first) · blocked (a later wave) · invalid (unschedulable). */
export type NodeState = 'done' | 'ready' | 'next' | 'blocked' | 'invalid';

/** A small mark another part of the extension attaches to a story (e.g. GitHub artifacts). */
export interface NodeBadge {
  readonly label: string;
  readonly tooltip?: string;
}

export interface TaskNode {
  /** Index in the graph's node list (= the story's position among the PRD's stories). */
  readonly index: number;
  /** The story id, or `#n` (1-based position) for a story without a usable id. */
  readonly id: string;
  readonly title: string;
  readonly priority: number | null;
  readonly state: NodeState;
  /** Wave of an unfinished, schedulable story; undefined for done and unschedulable ones. */
  readonly wave?: number;
  /** True when the story lies on the critical path. */
  readonly critical: boolean;
  /** True when the story is part of a dependency cycle (or blocked by itself). */
  readonly inCycle: boolean;
  /** Unfinished stories that wait on this one: directly, and directly or through others. */
  readonly unblocks: { readonly direct: number; readonly total: number };
  /** Ids it depends on that are not stories in the PRD. */
  readonly unknownDependencies: readonly string[];
  /** Filled by other features (artifact pips); the model leaves it empty. */
  readonly badges: readonly NodeBadge[];
}

/** An edge from the blocker to the story that waits on it. */
export interface TaskEdge {
  readonly from: number;
  readonly to: number;
  /** True when both ends lie in the same cycle. */
  readonly inCycle: boolean;
  /** True when both ends are consecutive on the critical path. */
  readonly critical: boolean;
}

export interface TaskGraph {
  readonly nodes: readonly TaskNode[];
  readonly edges: readonly TaskEdge[];
  /** Node indices per wave, each wave in run order (priority, then file order). */
  readonly waves: readonly (readonly number[])[];
  readonly unschedulable: readonly number[];
  /** Node indices from the first story to run to the last. */
  readonly criticalPath: readonly number[];
  /** Cycles as node indices (first repeated last), as the validator reported them. */
  readonly cycles: readonly (readonly number[])[];
  readonly byId: ReadonlyMap<string, number>;
  /** blockers[i] = nodes i waits on; dependents[i] = nodes that wait on i. */
  readonly blockers: readonly (readonly number[])[];
  readonly dependents: readonly (readonly number[])[];
}

export function nodeLabel(story: Story, position: number): string {
  return story.id !== '' ? story.id : `#${position + 1}`;
}

/** The graph of an analysed PRD (its readiness decides "next"; its cycles are reused). */
export function taskGraphOf(analysis: PrdAnalysis): TaskGraph {
  const nextIndex = analysis.readiness.next ? analysis.doc.stories.indexOf(analysis.readiness.next.story) : -1;
  return buildTaskGraph(analysis.doc.stories, nextIndex);
}

export function buildTaskGraph(stories: readonly Story[], nextIndex = -1): TaskGraph {
  const n = stories.length;
  const g = buildStoryGraph(stories);
  const blockers = g.adj;
  const dependents = g.dependents;
  const done = stories.map((s) => s.passes);
  const priority = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    priority[i] = stories[i].priority;
  }
  const runOrder = (a: number, b: number): number => priority[a] - priority[b] || a - b;

  // A story is stuck when it waits on itself or an unknown id, or on a stuck or cyclic story.
  const unknown: string[][] = stories.map((s, i) => {
    if (s.passes) {
      return [];
    }
    const out: string[] = [];
    for (const ref of s.blockedBy) {
      const j = g.byId.get(ref.id);
      if ((j === undefined || j === i) && !out.includes(ref.id)) {
        out.push(ref.id);
      }
    }
    return out;
  });
  const selfLoop = stories.map((s, i) => s.id !== '' && s.blockedBy.some((r) => g.byId.get(r.id) === i));

  // Kahn over unfinished stories: wave = 1 + max wave of unfinished blockers.
  const wave = new Int32Array(n).fill(-1);
  const remaining = new Int32Array(n);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) {
    if (done[i]) {
      continue;
    }
    for (const j of blockers[i]) {
      if (!done[j]) {
        remaining[i]++;
      }
    }
    if (remaining[i] === 0 && unknown[i].length === 0) {
      wave[i] = 0;
      queue.push(i);
    }
  }
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    for (const d of dependents[v]) {
      if (done[d]) {
        continue;
      }
      if (wave[v] + 1 > wave[d]) {
        // provisional maximum; final once remaining reaches 0
        wave[d] = wave[v] + 1;
      }
      if (--remaining[d] === 0 && unknown[d].length === 0) {
        queue.push(d);
      }
    }
  }
  // Stories never queued keep a provisional wave: reset them.
  const queued = new Uint8Array(n);
  for (const v of queue) {
    queued[v] = 1;
  }
  const unschedulable: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!done[i] && !queued[i]) {
      wave[i] = -1;
      unschedulable.push(i);
    }
  }
  unschedulable.sort(runOrder);
  let waveCount = 0;
  for (const v of queue) {
    waveCount = Math.max(waveCount, wave[v] + 1);
  }
  const waves: number[][] = Array.from({ length: waveCount }, () => []);
  for (const v of queue) {
    waves[wave[v]].push(v);
  }
  for (const w of waves) {
    w.sort(runOrder);
  }

  // Critical path: longest chain of unfinished, schedulable stories. queue is a topological order.
  const length = new Int32Array(n);
  const via = new Int32Array(n).fill(-1);
  for (const v of queue) {
    let best = -1;
    for (const j of blockers[v]) {
      if (!done[j] && queued[j] && (best === -1 || length[j] > length[best] || (length[j] === length[best] && runOrder(j, best) < 0))) {
        best = j;
      }
    }
    length[v] = best === -1 ? 1 : length[best] + 1;
    via[v] = best;
  }
  let end = -1;
  for (const v of queue) {
    if (end === -1 || length[v] > length[end] || (length[v] === length[end] && runOrder(v, end) < 0)) {
      end = v;
    }
  }
  const criticalPath: number[] = [];
  for (let v = end; v !== -1; v = via[v]) {
    criticalPath.push(v);
  }
  criticalPath.reverse();
  const onPath = new Uint8Array(n);
  const pathNext = new Int32Array(n).fill(-1);
  criticalPath.forEach((v, k) => {
    onPath[v] = 1;
    if (k + 1 < criticalPath.length) {
      pathNext[v] = criticalPath[k + 1];
    }
  });

  // Cycles: strongly connected components of size > 1, plus self-loops.
  const components = stronglyConnectedComponents(blockers);
  const component = new Int32Array(n);
  components.forEach((c, k) => {
    for (const v of c) {
      component[v] = k;
    }
  });
  const inCycle = stories.map((_, i) => selfLoop[i] || components[component[i]].length > 1);

  const unblocks = countUnblocks(n, dependents, done, components, component);

  const byId = new Map<string, number>();
  stories.forEach((s, i) => {
    const label = nodeLabel(s, i);
    if (!byId.has(label)) {
      byId.set(label, i);
    }
  });

  const nodes: TaskNode[] = stories.map((s, i) => ({
    index: i,
    id: nodeLabel(s, i),
    title: s.title,
    priority: Number.isFinite(s.priority) ? s.priority : null,
    state: done[i] ? 'done' : !queued[i] ? 'invalid' : i === nextIndex ? 'next' : wave[i] === 0 ? 'ready' : 'blocked',
    wave: queued[i] ? wave[i] : undefined,
    critical: onPath[i] === 1,
    inCycle: inCycle[i],
    unblocks: { direct: unblocks.direct[i], total: unblocks.total[i] },
    unknownDependencies: unknown[i],
    badges: [],
  }));
  const edges: TaskEdge[] = [];
  for (let to = 0; to < n; to++) {
    for (const from of blockers[to]) {
      edges.push({
        from,
        to,
        inCycle: component[from] === component[to] && components[component[to]].length > 1,
        critical: pathNext[from] === to,
      });
    }
  }
  const cycles = components.filter((c) => c.length > 1);
  return { nodes, edges, waves, unschedulable, criticalPath, cycles, byId, blockers, dependents };
}

/**
 * direct[i]: unfinished stories with an edge from i; total[i]: unfinished stories reachable from i
 * along dependents (i itself excluded). Done stories unblock nothing: nothing waits on them.
 * Reachability is a bitset per strongly connected component, merged in reverse topological order.
 */
function countUnblocks(
  n: number,
  dependents: readonly (readonly number[])[],
  done: readonly boolean[],
  components: readonly number[][],
  component: Int32Array,
): { direct: Int32Array; total: Int32Array } {
  const direct = new Int32Array(n);
  const total = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (done[i]) {
      continue;
    }
    for (const d of dependents[i]) {
      if (!done[d]) {
        direct[i]++;
      }
    }
  }
  const c = components.length;
  const words = (n + 31) >>> 5;
  const reach: Uint32Array[] = new Array<Uint32Array>(c);
  const order = condensationOrder(n, dependents, components, component);
  // order: components such that every dependent component comes before its blockers.
  for (const k of order) {
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
        if (!done[d]) {
          bits[d >>> 5] |= 1 << (d & 31);
        }
      }
    }
    reach[k] = bits;
  }
  for (let i = 0; i < n; i++) {
    if (done[i]) {
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
function condensationOrder(n: number, dependents: readonly (readonly number[])[], components: readonly number[][], component: Int32Array): number[] {
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
export function lineage(graph: Pick<TaskGraph, 'blockers' | 'dependents'>, start: number): { ancestors: Set<number>; descendants: Set<number> } {
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
 * The chain that a new edge `blocker → story` would close, as ids from the story back to itself
 * (story → … → blocker → story), or undefined when the edge is safe.
 */
export function cycleClosedBy(graph: Pick<TaskGraph, 'dependents'>, storyIndex: number, blockerIndex: number): number[] | undefined {
  if (storyIndex === blockerIndex) {
    return [storyIndex, storyIndex];
  }
  // The new edge closes a cycle when the blocker already (transitively) waits on the story.
  const prev = new Map<number, number>([[storyIndex, -1]]);
  const queue = [storyIndex];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    if (v === blockerIndex) {
      const path: number[] = [];
      for (let x = v; x !== -1; x = prev.get(x) as number) {
        path.push(x);
      }
      path.reverse();
      return [...path, storyIndex];
    }
    for (const d of graph.dependents[v]) {
      if (!prev.has(d)) {
        prev.set(d, v);
        queue.push(d);
      }
    }
  }
  return undefined;
}
