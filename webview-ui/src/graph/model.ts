/** What the page knows: the latest graph, layout, run status and view state, plus derived lookups. */
import { artifactBadgeView } from './artifactBadge';
import type { GraphMessage, GraphNodeDto, LayoutDto, RunMessage, RunningStoryDto, StoryWait, ViewState } from '../../../src/core/webview/graphProtocol';
import { STORY_STATES, type StoryStateKey } from '../../../src/core/vocabulary';
import { countdown } from '../../../src/core/webview/graphProtocol';

export { countdown };

export type { GraphMessage, GraphNodeDto, LayoutDto, RunMessage, RunningStoryDto, StoryWait, ViewState };

export interface Derived {
  readonly byId: Map<string, number>;
  /** blockers[i]: nodes i waits on; dependents[i]: nodes that wait on i (indices). */
  readonly blockers: number[][];
  readonly dependents: number[][];
  /** Edge index by "from,to". */
  readonly edgeIndex: Map<string, number>;
}

export function derive(g: GraphMessage): Derived {
  const byId = new Map<string, number>();
  g.nodes.forEach((n, i) => {
    if (!byId.has(n.id)) {
      byId.set(n.id, i);
    }
  });
  const blockers: number[][] = g.nodes.map(() => []);
  const dependents: number[][] = g.nodes.map(() => []);
  const edgeIndex = new Map<string, number>();
  g.edges.forEach(([from, to], k) => {
    if (from < g.nodes.length && to < g.nodes.length) {
      blockers[to].push(from);
      dependents[from].push(to);
      edgeIndex.set(`${from},${to}`, k);
    }
  });
  return { byId, blockers, dependents, edgeIndex };
}

export function lineage(d: Derived, start: number): Set<number> {
  const out = new Set<number>([start]);
  for (const adj of [d.blockers, d.dependents]) {
    const stack = [start];
    const seen = new Set<number>([start]);
    while (stack.length > 0) {
      for (const w of adj[stack.pop() as number]) {
        if (!seen.has(w)) {
          seen.add(w);
          out.add(w);
          stack.push(w);
        }
      }
    }
  }
  return out;
}

/** The vocabulary's key for a node as drawn: running, then on a cycle, then its state. */
export function stateKey(n: GraphNodeDto, running: boolean): StoryStateKey {
  return running ? 'running' : n.inCycle ? 'cycle' : n.state;
}

export function stateWords(n: GraphNodeDto, running: boolean): string {
  return STORY_STATES[stateKey(n, running)].spoken;
}

/**
 * "US-004 Priority selector, blocked by US-002 and US-003, wave 3" plus state, unblocks, the
 * issue's artifacts and, while a parallel run has not started it, why it waits.
 */
export function accessibleName(n: GraphNodeDto, running: boolean, wait?: string): string {
  const parts = [`${n.id} ${n.title}`.trim()];
  if (n.blockedBy.length > 0) {
    parts.push(`blocked by ${joinAnd(n.blockedBy)}`);
  }
  if (n.wave !== null) {
    parts.push(`wave ${n.wave + 1}`);
  }
  parts.push(stateWords(n, running));
  if (n.critical) {
    parts.push('on the critical path');
  }
  if (n.unblocks.total > 0) {
    parts.push(`unblocks ${n.unblocks.total}`);
  }
  if (n.artifacts) {
    parts.push(artifactBadgeView(n.artifacts).spoken);
  }
  if (wait) {
    parts.push(wait);
  }
  return parts.join(', ');
}

export function joinAnd(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/** The codicon font's glyph of each state's icon (SVG text cannot use the codicon CSS classes). */
export const GLYPHS: Readonly<Record<string, string>> = {
  'pass-filled': '\uebb3',
  'circle-large-outline': '\uebb5',
  'play-circle': '\ueba6',
  'circle-slash': '\ueabd',
  sync: '\uea77',
  error: '\uea87',
  loading: '\ueb19',
  history: '\uea82',
};

export function iconOf(n: GraphNodeDto, running: boolean): { codicon: string; glyph: string } {
  const codicon = STORY_STATES[stateKey(n, running)].codicon;
  return { codicon, glyph: GLYPHS[codicon] ?? '' };
}

export function elapsed(startedAt: number | undefined, now: number): string {
  if (startedAt === undefined) {
    return '';
  }
  const s = Math.max(0, Math.floor((now - startedAt) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A running story's i/N ("2/10"; "?" for what the run does not know yet). */
export function iterationText(r: RunningStoryDto): string {
  return `${r.iteration ?? '?'}/${r.maxIterations ?? '?'}`;
}

/** The attribute that marks an element showing the time since its value (ms): `tickElapsed` keeps its text current. */
export const ELAPSED_FROM = 'data-elapsed-from';

/**
 * Every elapsed time shown under `root`, brought up to date in place: the marks are not rebuilt
 * each second, so a mark the keyboard focused keeps its focus.
 */
export function tickElapsed(root: ParentNode, now: number): void {
  root.querySelectorAll(`[${ELAPSED_FROM}]`).forEach((e) => {
    const text = elapsed(Number(e.getAttribute(ELAPSED_FROM)), now);
    if (e.textContent !== text) {
      e.textContent = text;
    }
  });
  root.querySelectorAll(`[${RESUMES_AT}]`).forEach((e) => {
    const text = countdown(Number(e.getAttribute(RESUMES_AT)) - now);
    if (e.textContent !== text) {
      e.textContent = text;
    }
  });
}

/** The attribute that marks a countdown to its value (ms since the epoch): a run waiting out its agent's limit. */
export const RESUMES_AT = 'data-resumes-at';

/** Creates an element with attributes and text (never HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    e.setAttribute(k, v);
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}

const SVG = 'http://www.w3.org/2000/svg';
export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, text?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    e.setAttribute(k, String(v));
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}
