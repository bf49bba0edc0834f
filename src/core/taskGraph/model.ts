/**
 * The task graph of a PRD: one node per story with its state, edges from blocker to blocked, the
 * parallel **waves** of unfinished work, the **critical path** (a longest chain of unfinished
 * stories) and, per story, how many unfinished stories wait on it ("unblocks"). The rules are the
 * schedule's (src/core/prd/schedule.ts, the one implementation the tree and the CLI read too);
 * this module draws it. Stories in a cycle, blocked by themselves or by an unknown id, and every
 * story behind them, can never run: they are "unschedulable", listed and drawn, never dropped.
 */
import type { Story } from '../prd/document';
import type { PrdAnalysis } from '../prd/index';
import { computeSchedule, criticalPath as criticalPathOf, type Schedule, unblocksOf } from '../prd/schedule';

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
  /** The groups of stories tangled in cycles (strongly connected components of more than one story), as node indices. */
  readonly cycles: readonly (readonly number[])[];
  readonly byId: ReadonlyMap<string, number>;
  /** blockers[i] = nodes i waits on; dependents[i] = nodes that wait on i. */
  readonly blockers: readonly (readonly number[])[];
  readonly dependents: readonly (readonly number[])[];
}

export function nodeLabel(story: Story, position: number): string {
  return story.id !== '' ? story.id : `#${position + 1}`;
}

/** The graph of an analysed PRD: the schedule its readiness was read from, drawn. */
export function taskGraphOf(analysis: PrdAnalysis): TaskGraph {
  return graphOfSchedule(analysis.doc.stories, analysis.readiness.schedule);
}

/** The graph of stories read without an analysis; `nextIndex` overrides the schedule's "next". */
export function buildTaskGraph(stories: readonly Story[], nextIndex?: number): TaskGraph {
  const schedule = computeSchedule(stories);
  return graphOfSchedule(stories, nextIndex === undefined ? schedule : { ...schedule, next: nextIndex });
}

function graphOfSchedule(stories: readonly Story[], schedule: Schedule): TaskGraph {
  const { graph, wave, inCycle, components, component } = schedule;
  const n = stories.length;
  const criticalPath = criticalPathOf(schedule);
  const pathNext = new Int32Array(n).fill(-1);
  for (let k = 0; k + 1 < criticalPath.length; k++) {
    pathNext[criticalPath[k]] = criticalPath[k + 1];
  }
  const onPath = new Set(criticalPath);
  const unblocks = unblocksOf(stories, schedule);

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
    state: s.passes ? 'done' : wave[i] === -1 ? 'invalid' : i === schedule.next ? 'next' : wave[i] === 0 ? 'ready' : 'blocked',
    wave: wave[i] === -1 ? undefined : wave[i],
    critical: onPath.has(i),
    inCycle: inCycle[i],
    unblocks: { direct: unblocks.direct[i], total: unblocks.total[i] },
    unknownDependencies: schedule.unresolved[i],
    badges: [],
  }));
  const edges: TaskEdge[] = [];
  for (let to = 0; to < n; to++) {
    for (const from of graph.adj[to]) {
      edges.push({ from, to, inCycle: component[from] === component[to] && components[component[to]].length > 1, critical: pathNext[from] === to });
    }
  }
  return { nodes, edges, waves: schedule.waves, unschedulable: schedule.unschedulable, criticalPath, cycles: components.filter((c) => c.length > 1), byId, blockers: graph.adj, dependents: graph.dependents };
}
