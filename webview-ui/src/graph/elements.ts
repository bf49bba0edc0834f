/**
 * What one story and one dependency look like in the SVG drawing: the node's element (state,
 * icon, id, title, wave, artifact badge, run mark or last outcome) and the edge's path. Story text
 * reaches the DOM only as text (`svg()` sets textContent).
 */
import { artifactBadgeView } from './artifactBadge';
import { accessibleName, countdown, ELAPSED_FROM, elapsed, type GraphMessage, iconOf, iterationText, type LayoutDto, RESUMES_AT, type RunningStoryDto, type StoryWait, svg } from './model';

/** Codicon glyphs of the artifact badge: "issues", and "warning" when a prerequisite is missing. */
const ISSUE_GLYPH = '\ueb0c';
const ISSUE_WARN_GLYPH = '\uea6c';

export interface EdgeEntry {
  readonly path: SVGPathElement;
  readonly hit: SVGPathElement;
  readonly sig: string;
  d: string;
}

export interface EdgeGeometry {
  readonly d: string;
  readonly minX: number;
  readonly maxX: number;
  readonly minY: number;
  readonly maxY: number;
}

/** Each edge's path and bounding box (to draw only the edges that cross the viewport). */
export function edgeGeometryOf(g: GraphMessage, l: LayoutDto): EdgeGeometry[] {
  const NW = l.nodeWidth;
  const NH = l.nodeHeight;
  const lr = l.direction === 'LR';
  return g.edges.map(([from, to], k): EdgeGeometry => {
    const pts: number[] = lr ? [l.x[from] + NW, l.y[from] + NH / 2] : [l.x[from] + NW / 2, l.y[from] + NH];
    pts.push(...(l.bends[k] ?? []));
    pts.push(...(lr ? [l.x[to], l.y[to] + NH / 2] : [l.x[to] + NW / 2, l.y[to]]));
    let minX = Infinity;
    let maxX = -Infinity;
    let minY = Infinity;
    let maxY = -Infinity;
    for (let p = 0; p < pts.length; p += 2) {
      minX = Math.min(minX, pts[p]);
      maxX = Math.max(maxX, pts[p]);
      minY = Math.min(minY, pts[p + 1]);
      maxY = Math.max(maxY, pts[p + 1]);
    }
    return { d: curve(pts, lr), minX, maxX, minY, maxY };
  });
}

/** An edge's path and its wider, invisible hit area. */
export function edgeElement(g: GraphMessage, k: number, kind: string, d: string, sig: string): EdgeEntry {
  const [from, to] = g.edges[k];
  const path = svg('path', {
    d,
    class: `edge ${kind}`,
    'marker-end': `url(#arrow-${kind})`,
    'data-kind': kind,
    'data-from-index': from,
    'data-to-index': to,
    'data-from': g.nodes[from].id,
    'data-to': g.nodes[to].id,
  });
  const hit = svg('path', { d, class: 'edge-hit', 'data-edge': k });
  hit.append(svg('title', {}, `${g.nodes[from].id} blocks ${g.nodes[to].id} (click, then Delete to remove)`));
  return { path, hit, sig, d };
}

/**
 * A node's element at (x, y); `run` is given when an agent works on this story now (its mark: i/N,
 * elapsed, its terminal); `wait` when a parallel run has not started this ready story, and why.
 */
export function nodeElement(n: GraphMessage['nodes'][number], i: number, x: number, y: number, run: RunningStoryDto | undefined, outcome: string, NW: number, NH: number, now: number, wait?: StoryWait): SVGGElement {
  const running = run !== undefined;
  const classes = ['node', `state-${n.state}`];
  if (n.critical) {
    classes.push('critical');
  }
  if (n.inCycle) {
    classes.push('cycle');
  }
  if (running) {
    classes.push('running');
  }
  const node = svg('g', {
    class: classes.join(' '),
    transform: `translate(${x},${y})`,
    role: 'button',
    tabindex: -1,
    'aria-label': accessibleName(n, running, wait?.text),
    'data-id': n.id,
    'data-index': i,
    'data-state': n.state,
  });
  node.append(svg('rect', { class: 'box', width: NW, height: NH, rx: 6 }));
  const icon = iconOf(n, running);
  node.append(svg('text', { class: `icon codicon-glyph icon-${icon.codicon}`, x: 10, y: 24 }, icon.glyph));
  node.append(svg('text', { class: 'id', x: 30, y: 22 }, clip(n.id, 22)));
  node.append(svg('text', { class: 'title', x: 10, y: 44 }, clip(n.title, 30)));
  const chips: string[] = [];
  if (n.wave !== null) {
    chips.push(`W${n.wave + 1}`);
  }
  if (n.unblocks.total > 0) {
    chips.push(`unblocks ${n.unblocks.total}`);
  }
  if (chips.length > 0) {
    node.append(svg('text', { class: 'chip', x: NW - 8, y: 20, 'text-anchor': 'end' }, chips.join(' · ')));
  }
  let badgeX = 10;
  if (n.artifacts) {
    // the story's issue and its artifacts: "#42 R P V", warning colour when a prerequisite is missing
    const a = artifactBadgeView(n.artifacts);
    const mark = svg('text', { class: `artifacts${a.warn ? ' warn' : ''}`, x: badgeX, y: NH - 5, 'data-issue': n.artifacts.issue });
    mark.append(svg('tspan', { class: 'codicon-glyph', 'aria-hidden': 'true' }, a.warn ? ISSUE_WARN_GLYPH : ISSUE_GLYPH), svg('tspan', { dx: 3 }, clip(a.text, 20)));
    mark.append(svg('title', {}, a.tooltip));
    node.append(mark);
    badgeX += 16 + 6 * a.text.length;
  }
  n.badges.slice(0, 4).forEach((b, k) => {
    const badge = svg('text', { class: 'badge', x: badgeX + k * 26, y: NH - 4 }, b.label);
    if (b.tooltip) {
      badge.append(svg('title', {}, b.tooltip));
    }
    node.append(badge);
  });
  if (running) {
    // A button of its own (a tab stop; Enter or Space, input.ts): one per running story, each to its agent's terminal.
    const mark = svg('g', {
      class: 'run-mark',
      role: 'button',
      tabindex: 0,
      'data-story': n.id,
      'aria-label': `${n.id} running, iteration ${run.iteration ?? '?'} of ${run.maxIterations ?? '?'}: show its agent's terminal`,
    });
    mark.append(svg('rect', { x: NW - 92, y: NH - 18, width: 88, height: 16, rx: 8 }));
    const text = svg('text', { x: NW - 48, y: NH - 6, 'text-anchor': 'middle' }, run.resumesAt !== undefined ? '⏸ limit ' : `▶ ${iterationText(run)}`);
    if (run.resumesAt !== undefined) {
      // waiting out the agent's limit: the time until the story runs again
      text.append(svg('tspan', { [RESUMES_AT]: run.resumesAt }, countdown(run.resumesAt - now)));
      mark.setAttribute('aria-label', `${n.id} waits for its agent's limit to reset: runs again in ${countdown(run.resumesAt - now)}`);
    } else if (run.startedAt !== undefined) {
      text.append(' · ', svg('tspan', { [ELAPSED_FROM]: run.startedAt }, elapsed(run.startedAt, now)));
    }
    mark.append(text);
    node.append(mark);
  } else if (wait) {
    // Why the run has not started it, in the place of the last outcome (hover: the whole sentence).
    const mark = svg('text', { class: 'wait-mark', x: NW - 8, y: NH - 6, 'text-anchor': 'end' }, `⏸ ${clip(wait.short, 24)}`);
    mark.append(svg('title', {}, `${n.id} ${wait.text}`));
    node.append(mark);
  } else if (outcome) {
    node.append(svg('text', { class: `outcome outcome-${outcome}`, x: NW - 8, y: NH - 6, 'text-anchor': 'end' }, `last run: ${outcome}`));
  }
  node.append(svg('title', {}, wait ? `${n.id}: ${n.title}\n${n.id} ${wait.text}` : `${n.id}: ${n.title}`));
  return node;
}

/** A smooth path through the points, leaving and entering along the flow. */
function curve(pts: number[], lr: boolean): string {
  let d = `M${pts[0]},${pts[1]}`;
  for (let p = 2; p < pts.length; p += 2) {
    const x0 = pts[p - 2];
    const y0 = pts[p - 1];
    const x1 = pts[p];
    const y1 = pts[p + 1];
    if (lr) {
      const mx = (x0 + x1) / 2;
      d += ` C${mx},${y0} ${mx},${y1} ${x1},${y1}`;
    } else {
      const my = (y0 + y1) / 2;
      d += ` C${x0},${my} ${x1},${my} ${x1},${y1}`;
    }
  }
  return d;
}

export function setIfChanged(e: Element, name: string, value: string): void {
  if (e.getAttribute(name) !== value) {
    e.setAttribute(name, value);
  }
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
