/**
 * The editor drawing's fit (webview-ui/src/graph/viewport.ts): labels stay readable at first sight
 * (fit never zooms below the floor taken from the label font size: it scrolls instead), and the
 * smallest pan that brings a story back into view.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { DEFAULT_LAYOUT_OPTIONS, layeredLayout } from '../../src/core/taskGraph/layout';
import { FIT_PADDING, fitView, isFullyVisible, LABEL_FONT_PX, MAX_FIT_ZOOM, panToShow, READABLE_LABEL_PX, READABLE_ZOOM } from '../../webview-ui/src/graph/viewport';

/** The bounds of a layered layout of `n` stories in `waves` waves (each story waits on one of the wave before). */
function boundsOf(n: number, waves: number): { x0: number; y0: number; x1: number; y1: number } {
  const per = Math.ceil(n / waves);
  const edges = [];
  for (let v = per; v < n; v++) {
    edges.push({ from: v - per, to: v });
  }
  const l = layeredLayout({ n, edges });
  const o = DEFAULT_LAYOUT_OPTIONS;
  const x1 = Math.max(...l.x) + o.nodeWidth;
  const y1 = Math.max(...l.y) + o.nodeHeight;
  return { x0: Math.min(...l.x), y0: Math.min(...l.y), x1, y1 };
}

describe('task graph fit and floor', () => {
  it('the floor is taken from the label font size so a label is at least 11 px on screen', () => {
    assert.equal(READABLE_LABEL_PX, 11);
    assert.ok(LABEL_FONT_PX * READABLE_ZOOM >= READABLE_LABEL_PX - 1e-9);
    // graph.css draws the node labels (id, title) at these sizes: the smallest is the one the floor is made for
    const css = readFileSync(path.join(__dirname, '..', '..', 'webview-ui', 'src', 'graph', 'graph.css'), 'utf8');
    const size = (selector: string): number => Number(new RegExp(`${selector.replace(/\./g, '\\.')} \\{[^}]*font-size: (\\d+)px`).exec(css)?.[1]);
    assert.equal(Math.min(size('.node .id'), size('.node .title')), LABEL_FONT_PX, 'LABEL_FONT_PX follows graph.css');
  });

  it('a graph of 60 stories in a 1,000 × 700 panel opens with labels of 11 px or more, starting at its top-left', () => {
    const b = boundsOf(60, 5);
    const v = fitView(b, { w: 1000, h: 700 });
    assert.ok(v.zoom * LABEL_FONT_PX >= 11, `labels ${(v.zoom * LABEL_FONT_PX).toFixed(1)} px high at zoom ${v.zoom}`);
    // it does not fit: it starts at the first wave, the rest is a pan away
    assert.equal(v.panX, FIT_PADDING - b.x0 * v.zoom);
    assert.equal(v.panY, FIT_PADDING - b.y0 * v.zoom);
  });

  it('a graph that fits is centred, never zoomed past the maximum', () => {
    const b = { x0: 0, y0: 0, x1: 200, y1: 56 };
    const v = fitView(b, { w: 1000, h: 700 });
    assert.equal(v.zoom, MAX_FIT_ZOOM);
    assert.equal(v.panX + (b.x1 * v.zoom) / 2, 500);
    assert.equal(v.panY + (b.y1 * v.zoom) / 2, 350);
  });

  it('any graph in any panel: the zoom stays between the floor and the maximum, and an axis that fits is centred', () => {
    const box = fc.record({ x0: fc.integer({ min: -500, max: 500 }), y0: fc.integer({ min: -500, max: 500 }), w: fc.integer({ min: 1, max: 20_000 }), h: fc.integer({ min: 1, max: 20_000 }) });
    const size = fc.record({ w: fc.integer({ min: 50, max: 4000 }), h: fc.integer({ min: 50, max: 3000 }) });
    fc.assert(
      fc.property(box, size, ({ x0, y0, w, h }, s) => {
        const v = fitView({ x0, y0, x1: x0 + w, y1: y0 + h }, s);
        assert.ok(v.zoom >= READABLE_ZOOM && v.zoom <= MAX_FIT_ZOOM);
        const left = x0 * v.zoom + v.panX;
        const right = (x0 + w) * v.zoom + v.panX;
        if (w * v.zoom <= s.w - 2 * FIT_PADDING) {
          assert.ok(Math.abs(left - (s.w - right)) < 1e-6, 'centred across');
        } else {
          assert.ok(Math.abs(left - FIT_PADDING) < 1e-6, 'starts at the padding');
        }
      }),
    );
  });

  it('panToShow: a story out of view is brought in by the smallest pan; one in view does not move', () => {
    const size = { w: 800, h: 600 };
    const view = { zoom: 1, panX: 0, panY: 0 };
    const inside = { x0: 100, y0: 100, x1: 300, y1: 156 };
    assert.ok(isFullyVisible(inside, view, size));
    assert.deepEqual(panToShow(inside, view, size), { panX: 0, panY: 0 });
    // half under the right edge (where the detail pane opened): moved left just enough, with the margin
    const right = { x0: 700, y0: 100, x1: 900, y1: 156 };
    assert.ok(!isFullyVisible(right, view, size));
    const p = panToShow(right, view, size, 16);
    assert.deepEqual(p, { panX: 800 - 16 - 900, panY: 0 });
    assert.ok(isFullyVisible(right, { ...view, ...p }, size));
    fc.assert(
      fc.property(fc.integer({ min: -5000, max: 5000 }), fc.integer({ min: -5000, max: 5000 }), fc.double({ min: 0.05, max: 4, noNaN: true }), (x, y, zoom) => {
        const b = { x0: x, y0: y, x1: x + 200, y1: y + 56 };
        const v = { zoom, panX: 13, panY: -7 };
        assert.ok(isFullyVisible(b, { zoom, ...panToShow(b, v, size) }, size));
      }),
    );
  });
});
