/**
 * The task graph as text: the layered list a person or an agent reads, Mermaid for documents, and
 * JSON for scripts. The same functions serve the CLI and the webview's "Copy as …" buttons.
 */
import { oneLine } from '../output';
import { STORY_STATES } from '../vocabulary';
import type { TaskGraph, TaskNode } from './model';

/** The JSON form of the CLI: waves, unschedulable, critical path (ids) and unblocks per story. */
export interface TaskGraphJson {
  readonly waves: string[][];
  readonly unschedulable: string[];
  readonly criticalPath: string[];
  readonly unblocks: Record<string, { direct: number; total: number }>;
}

export function graphJson(graph: TaskGraph): TaskGraphJson {
  const id = (i: number): string => graph.nodes[i].id;
  // A null-prototype record: a story id such as "__proto__" is a plain key.
  const unblocks = Object.create(null) as Record<string, { direct: number; total: number }>;
  for (const n of graph.nodes) {
    if (!(n.id in unblocks)) {
      unblocks[n.id] = { direct: n.unblocks.direct, total: n.unblocks.total };
    }
  }
  return {
    waves: graph.waves.map((w) => w.map(id)),
    unschedulable: graph.unschedulable.map(id),
    criticalPath: graph.criticalPath.map(id),
    unblocks,
  };
}

/**
 * The layered list:
 *   Wave 1: US-003, US-007 (2 stories can run in parallel)
 * numbered from 1 for people, then the unschedulable stories with why, the critical path, the
 * stories that unblock the most, and the done count.
 */
export function graphText(graph: TaskGraph): string {
  const out: string[] = [];
  const id = (i: number): string => oneLine(graph.nodes[i].id);
  const done = graph.nodes.filter((n) => n.state === 'done').length;
  const total = graph.nodes.length;
  if (total === 0) {
    return 'No stories in prd.json.\n';
  }
  out.push(`${total} ${plural(total, 'story', 'stories')}: ${done} done, ${graph.waves.reduce((s, w) => s + w.length, 0)} to run in ${graph.waves.length} ${plural(graph.waves.length, 'wave', 'waves')}, ${graph.unschedulable.length} unschedulable.`);
  graph.waves.forEach((w, k) => {
    const note = w.length > 1 ? ` (${w.length} stories can run in parallel)` : '';
    out.push(`Wave ${k + 1}: ${w.map(id).join(', ')}${note}`);
  });
  if (graph.unschedulable.length > 0) {
    out.push(`Unschedulable: ${graph.unschedulable.map(id).join(', ')}`);
    for (const i of graph.unschedulable) {
      out.push(`  ${id(i)}: ${whyStuck(graph, graph.nodes[i])}`);
    }
  }
  if (graph.criticalPath.length > 0) {
    out.push(`Critical path (${graph.criticalPath.length} ${plural(graph.criticalPath.length, 'story', 'stories')}): ${graph.criticalPath.map(id).join(' → ')}`);
  }
  const keystones = graph.nodes
    .filter((n) => n.unblocks.total > 0)
    .sort((a, b) => b.unblocks.total - a.unblocks.total || b.unblocks.direct - a.unblocks.direct || a.index - b.index)
    .slice(0, 5);
  if (keystones.length > 0) {
    out.push(`Unblocks the most: ${keystones.map((n) => `${oneLine(n.id)} (${n.unblocks.total}${n.unblocks.direct !== n.unblocks.total ? `, ${n.unblocks.direct} directly` : ''})`).join(', ')}`);
  }
  if (done === total) {
    out.push('Every story passes.');
  }
  return `${out.join('\n')}\n`;
}

export function whyStuck(graph: TaskGraph, node: TaskNode): string {
  if (node.inCycle) {
    return STORY_STATES.cycle.spoken;
  }
  if (node.unknownDependencies.length > 0) {
    return `waits on ${node.unknownDependencies.map((u) => `"${oneLine(u)}"`).join(', ')}, not ${node.unknownDependencies.length === 1 ? 'a story' : 'stories'} in prd.json`;
  }
  const stuck = graph.blockers[node.index].filter((j) => graph.nodes[j].state === 'invalid').map((j) => oneLine(graph.nodes[j].id));
  return `waits on ${stuck.join(', ')}, which ${STORY_STATES.invalid.spoken}`;
}

/**
 * A Mermaid flowchart, left to right, blocker → blocked. Node names are generated (n0, n1, …) and
 * labels escaped, so any id or title is safe. Classes mark the states and the critical path.
 */
export function graphMermaid(graph: TaskGraph): string {
  const out = ['flowchart LR'];
  for (const n of graph.nodes) {
    const label = n.title ? `${n.id}: ${n.title}` : n.id;
    out.push(`  n${n.index}["${mermaidText(label)}"]:::${n.state}`);
  }
  graph.edges.forEach((e, k) => {
    out.push(`  n${e.from} --> n${e.to}`);
    if (e.critical) {
      out.push(`  linkStyle ${k} stroke-width:3px`);
    }
  });
  out.push('  classDef done fill:#e6f4ea,stroke:#1e7e34,color:#1e4620');
  out.push('  classDef ready fill:#e8f0fe,stroke:#1a73e8');
  out.push('  classDef next fill:#e8f0fe,stroke:#1a73e8,stroke-width:3px');
  out.push('  classDef blocked fill:#fff8e1,stroke:#b08800,stroke-dasharray:4 3');
  out.push('  classDef invalid fill:#fdecea,stroke:#c5221f,stroke-width:2px');
  const critical = graph.criticalPath.map((i) => `n${i}`);
  if (critical.length > 0) {
    out.push('  classDef critical stroke:#d93025,stroke-width:3px');
    out.push(`  class ${critical.join(',')} critical`);
  }
  return `${out.join('\n')}\n`;
}

/**
 * Text inside a quoted Mermaid label: one line (breaks and tabs as spaces), quotes and markup
 * characters as entity codes, other controls and bidi characters as visible escapes (`\u202e`:
 * an entity code would put the character itself back into the rendered chart).
 */
function mermaidText(s: string): string {
  return oneLine(
    s
      .replace(/[\r\n\t]+/g, ' ')
      .replace(/[&"<>#`|{}[\]]/g, (c) => `#${c.charCodeAt(0)};`)
      .slice(0, 200),
  );
}

function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}
