/** The task graph's canvas overview (more stories on screen than the SVG drawing can keep responsive). */
import { STORY_STATE_KEYS } from '../../../src/core/vocabulary';
import type { GraphMessage, LayoutDto, ViewState } from './model';

/**
 * The canvas overview, drawn instead of the SVG when the zoom shows more stories than the SVG can
 * keep responsive: a rectangle per story in its state's colour, a line per dependency.
 */
export function drawOverview(
c: HTMLCanvasElement,
css: CSSStyleDeclaration,
g: GraphMessage,
l: LayoutDto,
v: ViewState,
w: number,
h: number,
show: { readonly hidden: (i: number) => boolean; readonly selected: number | undefined },
): void {
  c.style.display = 'block';
  const dpr = window.devicePixelRatio || 1;
  c.width = Math.round(w * dpr);
  c.height = Math.round(h * dpr);
  c.style.width = `${w}px`;
  c.style.height = `${h}px`;
  const ctx = c.getContext('2d');
  if (!ctx) {
    return;
  }
  ctx.setTransform(dpr * v.zoom, 0, 0, dpr * v.zoom, dpr * v.panX, dpr * v.panY);
  ctx.clearRect(-v.panX / v.zoom, -v.panY / v.zoom, w / v.zoom, h / v.zoom);
  ctx.lineWidth = 1 / v.zoom;
  ctx.strokeStyle = css.getPropertyValue('--edge').trim() || '#888';
  ctx.beginPath();
  const lr = l.direction === 'LR';
  g.edges.forEach(([from, to]) => {
    if (show.hidden(from) || show.hidden(to)) {
      return;
    }
    ctx.moveTo(lr ? l.x[from] + l.nodeWidth : l.x[from] + l.nodeWidth / 2, lr ? l.y[from] + l.nodeHeight / 2 : l.y[from] + l.nodeHeight);
    ctx.lineTo(lr ? l.x[to] : l.x[to] + l.nodeWidth / 2, lr ? l.y[to] + l.nodeHeight / 2 : l.y[to]);
  });
  ctx.stroke();
  // Each state's colour, as graph.css has it from the vocabulary.
  const fill: Record<string, string> = Object.fromEntries(STORY_STATE_KEYS.map((k) => [k, css.getPropertyValue(`--${k}`).trim()]));
  const selected = show.selected;
  g.nodes.forEach((n, i) => {
    if (show.hidden(i)) {
      return;
    }
    ctx.fillStyle = fill[n.state] || '#888';
    ctx.fillRect(l.x[i], l.y[i], l.nodeWidth, l.nodeHeight);
    if (i === selected || n.critical) {
      ctx.lineWidth = 4 / v.zoom;
      ctx.strokeStyle = css.getPropertyValue(i === selected ? '--focus' : '--critical').trim() || '#f00';
      ctx.strokeRect(l.x[i], l.y[i], l.nodeWidth, l.nodeHeight);
    }
  });
}
