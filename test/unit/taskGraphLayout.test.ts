/** The layered layout: edges flow forward, nodes never overlap, long edges bend through their layers, cycles are drawn. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { layeredLayout } from '../../src/core/taskGraph/layout';

const graphArb = fc
  .integer({ min: 0, max: 40 })
  .chain((n) => fc.record({ n: fc.constant(n), edges: fc.array(fc.record({ from: fc.nat(Math.max(0, n - 1)), to: fc.nat(Math.max(0, n - 1)) }), { maxLength: n * 3 }) }));

describe('task graph layout', () => {
  it('on a DAG every edge goes to a later layer, through one bend per layer crossed', () => {
    fc.assert(
      fc.property(graphArb, (g) => {
        const dag = { n: g.n, edges: g.edges.filter((e) => e.from < e.to) };
        const l = layeredLayout(dag);
        assert.equal(l.reversed.size, 0);
        dag.edges.forEach((e, k) => {
          assert.ok(l.layer[e.from] < l.layer[e.to]);
          assert.equal(l.bends[k].length, 2 * (l.layer[e.to] - l.layer[e.from] - 1));
        });
        // longest-path layering: a node with a blocker sits right after its deepest blocker
        for (let v = 0; v < g.n; v++) {
          const ins = dag.edges.filter((e) => e.to === v).map((e) => l.layer[e.from]);
          assert.equal(l.layer[v], ins.length === 0 ? 0 : Math.max(...ins) + 1);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('nodes of one layer never overlap and keep their order; everything lies inside the drawing', () => {
    fc.assert(
      fc.property(graphArb, (g) => {
        const o = { nodeWidth: 100, nodeHeight: 40, nodeGap: 10, layerGap: 50 };
        const l = layeredLayout(g, o);
        const byLayer = new Map<number, number[]>();
        for (let v = 0; v < g.n; v++) {
          byLayer.set(l.layer[v], [...(byLayer.get(l.layer[v]) ?? []), v]);
          assert.equal(l.x[v], l.layer[v] * 150);
          assert.ok(l.y[v] >= -1e-6 && l.y[v] + o.nodeHeight <= l.height + o.nodeGap + 1e-6, `node ${v} at ${l.y[v]} outside ${l.height}`);
        }
        for (const vs of byLayer.values()) {
          vs.sort((a, b) => l.order[a] - l.order[b]);
          for (let k = 0; k + 1 < vs.length; k++) {
            assert.ok(l.y[vs[k + 1]] - l.y[vs[k]] >= o.nodeHeight + o.nodeGap - 1e-6);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('draws a graph with cycles: the edges that close them are marked reversed, the rest flow forward', () => {
    fc.assert(
      fc.property(graphArb, (g) => {
        const l = layeredLayout(g);
        g.edges.forEach((e, k) => {
          if (e.from === e.to) {
            return;
          }
          if (l.reversed.has(k)) {
            assert.ok(l.layer[e.to] < l.layer[e.from]);
          } else if (g.edges.findIndex((f) => f.from === e.from && f.to === e.to) === k) {
            assert.ok(l.layer[e.from] < l.layer[e.to]);
          }
        });
      }),
      { numRuns: 200 },
    );
  });

  it('removes the crossing of a crossed pair', () => {
    // a→d, b→c with a above b and c above d initially: one sweep uncrosses them
    const l = layeredLayout({ n: 4, edges: [{ from: 0, to: 3 }, { from: 1, to: 2 }] });
    assert.equal(l.crossings, 0);
  });
});
