/**
 * A chart of the Run Dashboard as plain SVG (chosen by measuring, scripts/bench-dashboard.mjs): bars
 * or a line in a fixed viewBox that scales with the page. Built with DOM calls only, every label
 * through textContent (a story title is text, never markup). Each bar or point carries a <title>
 * (its label and value) for the mouse; the SVG as a whole is role="img", named by the chart's summary.
 */
import type { ChartData } from '../../../src/core/webview/dashboardProtocol';
import { svg } from '../graph/model';

const W = 600;
const H = 180;
const PAD = { left: 56, right: 8, top: 8, bottom: 20 };

/** A value in the chart's unit, short: "$1.25", "12.3k", "4m 05s", "67%". */
export function formatValue(unit: ChartData['unit'], v: number): string {
  switch (unit) {
    case 'usd':
      return v !== 0 && Math.abs(v) < 1 ? `$${v.toFixed(3)}` : `$${v.toFixed(2)}`;
    case 'tokens':
      return v >= 1e6 ? `${(v / 1e6).toFixed(2)}M` : v >= 1e3 ? `${(v / 1e3).toFixed(1)}k` : String(Math.round(v));
    case 'ms': {
      const s = Math.round(v / 1000);
      return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s` : `${Math.floor(s / 3600)}h ${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
    }
    case 'percent':
      return `${Math.round(v)}%`;
    default:
      return String(Math.round(v));
  }
}

function withTitle<T extends SVGElement>(e: T, text: string): T {
  e.appendChild(svg('title', {}, text));
  return e;
}

/** The chart's drawing, named by `summaryId` (the element that holds its summary). */
export function drawChart(c: ChartData, summaryId: string): SVGSVGElement {
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': summaryId, class: `plot plot-${c.kind}`, preserveAspectRatio: 'none' });
  const values = c.points.map((p) => p.value);
  const max = Math.max(c.unit === 'percent' ? 100 : 0, ...values) || 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v: number): number => PAD.top + plotH - (Math.max(0, v) / max) * plotH;
  root.appendChild(svg('line', { x1: PAD.left, y1: PAD.top + plotH, x2: W - PAD.right, y2: PAD.top + plotH, class: 'axis' }));
  for (const [v, cls] of [
    [max, 'tick-max'],
    [0, 'tick-zero'],
  ] as const) {
    const label = svg('text', { x: PAD.left - 4, y: y(v) + 4, 'text-anchor': 'end', class: `tick ${cls}` });
    label.textContent = formatValue(c.unit, v);
    root.appendChild(label);
  }
  const n = c.points.length;
  if (n === 0) {
    return root;
  }
  if (c.kind === 'bar') {
    const step = plotW / n;
    const gap = step > 4 ? step * 0.2 : 0;
    const width = Math.max(0.5, step - gap);
    const bottom = PAD.top + plotH;
    if (n <= 200) {
      // A bar each, with its tooltip, while bars are wide enough to point at.
      c.points.forEach((p, i) => {
        const top = y(p.value);
        root.appendChild(withTitle(svg('rect', { x: PAD.left + i * step + gap / 2, y: top, width, height: bottom - top, class: 'bar' }), `${p.label}: ${formatValue(c.unit, p.value)}`));
      });
    } else {
      // Thinner bars are read in the table view: one path draws them all (a thousand rects made the
      // first paint with 10,000 runs twice as slow, scripts/bench-dashboard.mjs).
      const d = c.points.map((p, i) => `M${(PAD.left + i * step + gap / 2).toFixed(2)} ${bottom}V${y(p.value).toFixed(2)}h${width.toFixed(2)}V${bottom}Z`).join('');
      root.appendChild(svg('path', { d, class: 'bar bars' }));
    }
  } else {
    const x = (i: number): number => PAD.left + (n === 1 ? plotW / 2 : (i / (n - 1)) * plotW);
    root.appendChild(svg('polyline', { points: c.points.map((p, i) => `${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(' '), class: 'line' }));
    // A mark per point while they stay apart; the last one always (the total so far).
    c.points.forEach((p, i) => {
      if (n <= 60 || i === n - 1) {
        root.appendChild(withTitle(svg('circle', { cx: x(i), cy: y(p.value), r: 3, class: 'dot' }), `${p.label}: ${formatValue(c.unit, p.value)}`));
      }
    });
  }
  const first = svg('text', { x: PAD.left, y: H - 4, class: 'tick' });
  first.textContent = c.points[0].label;
  const last = svg('text', { x: W - PAD.right, y: H - 4, 'text-anchor': 'end', class: 'tick' });
  last.textContent = n > 1 ? c.points[n - 1].label : '';
  root.append(first, last);
  return root;
}
