/**
 * Property tests (fast-check): readiness on random DAGs, cycle detection on random directed graphs
 * against a brute-force reference, the projected run order, and edits that round-trip.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { coveringCycles, cyclicComponents, stronglyConnectedComponents } from '../../src/core/graph';
import { MinHeap } from '../../src/core/heap';
import { firstInvalidUtf8, parsePrd, parsePrdWithTree, type Story } from '../../src/core/prd/document';
import { scanStoryLocators } from '../../src/core/prd/fastParse';
import { userStorySchema } from '../../src/core/prd/schema';
import { LineIndex } from '../../src/core/text';
import { applyEdits, removeBlockedByEdits, setPassesEdits } from '../../src/core/prd/edits';
import { buildStoryGraph } from '../../src/core/prd/graph';
import { analyzePrd, analyzePrdForReadiness } from '../../src/core/prd/index';
import { computeReadiness } from '../../src/core/prd/readiness';
import { graphIsClean, validatePrd } from '../../src/core/prd/validate';
import { analyze, makePrd, type StoryInput } from './helpers';

const RUNS = { numRuns: 150 };

/** Ids that do not follow file order, so file order and id order cannot be confused. */
const idOf = (i: number): string => `US-${String((i * 619) % 1000).padStart(3, '0')}`;

interface Spec {
  priority: number | null;
  passes: boolean;
  deps: number[];
}

const specArb: fc.Arbitrary<Spec> = fc.record({
  // Few distinct values, so ties are common; sometimes no priority at all.
  priority: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 4 }) }, { weight: 1, arbitrary: fc.constant(null) }),
  passes: fc.boolean(),
  deps: fc.array(fc.nat(), { maxLength: 3 }),
});

/** Random DAG: story i may only wait on stories generated before it (ids in random file places). */
const dagArb = fc.array(specArb, { maxLength: 30 }).map((specs): StoryInput[] =>
  specs.map((s, i) => ({
    id: idOf(i),
    priority: s.priority,
    passes: s.passes,
    blockedBy: i === 0 ? [] : s.deps.map((d) => idOf(d % i)),
  })),
);

/** The SPEC's rule, written out directly. */
function isReady(s: Story, byId: Map<string, Story>): boolean {
  return !s.passes && s.blockedBy.every((r) => byId.get(r.id)?.passes === true);
}

/** Runs the loop for real: take next, mark it passing, recompute; the ids in the order they ran. */
function simulateLoop(stories: readonly Story[]): string[] {
  let current = [...stories];
  const ran: string[] = [];
  for (;;) {
    const next = computeReadiness(current).next;
    if (!next) {
      return ran;
    }
    ran.push(next.story.id);
    current = current.map((s) => (s === next.story ? { ...s, passes: true } : s));
  }
}

describe('properties', () => {
  describe('readiness on random DAGs', () => {
    it('next is ready, and no ready story beats it on priority or file order', () => {
      fc.assert(
        fc.property(dagArb, (stories) => {
          const a = analyze(makePrd(stories));
          const doc = a.doc;
          const byId = new Map(doc.stories.map((s) => [s.id, s]));
          const r = a.readiness;
          const readyRef = doc.stories.filter((s) => isReady(s, byId));
          assert.deepEqual(
            r.ready.map((s) => s.story.index).sort((x, y) => x - y),
            readyRef.map((s) => s.index),
          );
          for (const st of r.states) {
            const expected = st.story.passes ? 'done' : isReady(st.story, byId) ? 'ready' : 'blocked';
            assert.equal(st.status, expected);
          }
          if (r.next) {
            const n = r.next.story;
            assert.ok(isReady(n, byId));
            for (const s of readyRef) {
              assert.ok(!(s.priority < n.priority), `${s.id} has a lower priority than ${n.id}`);
              assert.ok(!(s.priority === n.priority && s.index < n.index), `${s.id} ties with ${n.id} and comes first`);
            }
          } else {
            assert.equal(readyRef.length, 0);
          }
          const allPass = doc.stories.every((s) => s.passes);
          assert.equal(r.state === 'complete', doc.stories.length > 0 && allPass);
          assert.equal(r.state === 'empty', doc.stories.length === 0);
          // Without cycles or unknown ids something is always ready until everything passes.
          assert.notEqual(r.state, 'blocked');
          assert.deepEqual(r.explanation, []);
        }),
        RUNS,
      );
    });

    it('the projected run order is a topological order of the pending stories, and is what the loop does', () => {
      fc.assert(
        fc.property(dagArb, (stories) => {
          const a = analyze(makePrd(stories));
          const r = a.readiness;
          const pending = a.doc.stories.filter((s) => !s.passes);
          const runnable = r.order.filter((s) => s.runIndex !== undefined);
          // Every pending story is scheduled (a DAG has no stuck stories), each exactly once.
          assert.equal(runnable.length, pending.length);
          assert.deepEqual(new Set(runnable.map((s) => s.story.index)), new Set(pending.map((s) => s.index)));
          runnable.forEach((s, k) => assert.equal(s.runIndex, k));
          // Dependencies first.
          const pos = new Map(runnable.map((s, k) => [s.story.id, k]));
          for (const s of runnable) {
            for (const ref of s.story.blockedBy) {
              const p = pos.get(ref.id);
              assert.ok(p === undefined || p < pos.get(s.story.id)!, `${ref.id} runs before ${s.story.id}`);
            }
          }
          // Done stories come last, and the first runnable one is next.
          assert.ok(r.order.slice(runnable.length).every((s) => s.story.passes));
          assert.equal(runnable[0], r.next);
          // The projection is exactly what "take next, mark it passing, repeat" does.
          assert.deepEqual(
            runnable.map((s) => s.story.id),
            simulateLoop(a.doc.stories),
          );
        }),
        RUNS,
      );
    });
  });

  describe('cycles on random directed graphs', () => {
    /** Random graph: n stories, random waits-on edges (self-loops and duplicates allowed), random passes. */
    const graphArb = fc.integer({ min: 1, max: 10 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: n * 2 }),
        passes: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      }),
    );

    /** reach[u][v]: v is reachable from u in one or more steps, over edges allowed by `use`. */
    function reachability(n: number, edges: [number, number][], use: (u: number, v: number) => boolean): boolean[][] {
      const reach = Array.from({ length: n }, () => new Array<boolean>(n).fill(false));
      for (const [u, v] of edges) {
        if (use(u, v)) {
          reach[u][v] = true;
        }
      }
      for (let k = 0; k < n; k++) {
        for (let i = 0; i < n; i++) {
          if (reach[i][k]) {
            for (let j = 0; j < n; j++) {
              if (reach[k][j]) {
                reach[i][j] = true;
              }
            }
          }
        }
      }
      return reach;
    }

    /** Non-trivial components by definition: u ≠ v in one component iff each reaches the other. */
    function referenceComponents(n: number, reach: boolean[][]): number[][] {
      const seen = new Set<number>();
      const out: number[][] = [];
      for (let u = 0; u < n; u++) {
        if (seen.has(u)) {
          continue;
        }
        const comp = [u];
        for (let v = u + 1; v < n; v++) {
          if (reach[u][v] && reach[v][u]) {
            comp.push(v);
          }
        }
        if (comp.length > 1) {
          comp.forEach((x) => seen.add(x));
          out.push(comp);
        }
      }
      return out;
    }

    const toStories = (n: number, edges: [number, number][], passes: boolean[]): StoryInput[] =>
      Array.from({ length: n }, (_, i) => ({
        id: `S${i}`,
        passes: passes[i],
        blockedBy: edges.filter(([u]) => u === i).map(([, v]) => `S${v}`),
      }));

    it('reports exactly the cyclic components, with real cycles covering each one', () => {
      fc.assert(
        fc.property(graphArb, ({ n, edges, passes }) => {
          const text = makePrd(toStories(n, edges, passes));
          const a = analyze(text);
          const reach = reachability(n, edges, (u, v) => u !== v);
          const expected = referenceComponents(n, reach);
          const index = (id: string): number => Number(id.slice(1));
          const hasEdge = (u: number, v: number): boolean => edges.some(([x, y]) => x === u && y === v);

          // The graph module, directly.
          const adj = a.doc.stories.map((_, i) => [...new Set(edges.filter(([u, v]) => u === i && v !== i).map(([, v]) => v))]);
          assert.deepEqual(cyclicComponents(adj), expected);

          // Every reported cycle is real: closed, simple, and each story waits on the one before it.
          for (const c of a.cycles) {
            assert.equal(c[0], c[c.length - 1]);
            assert.ok(c.length >= 3, 'a cycle has at least two stories');
            assert.equal(new Set(c.slice(0, -1)).size, c.length - 1, 'no story repeats inside a cycle');
            for (let k = 0; k + 1 < c.length; k++) {
              assert.ok(hasEdge(index(c[k + 1]), index(c[k])), `${c[k + 1]} waits on ${c[k]}`);
            }
          }
          // Each cycle lies in one component, and the cycles of a component cover all of it.
          const compOf = new Map<number, number>();
          expected.forEach((comp, k) => comp.forEach((v) => compOf.set(v, k)));
          const covered = expected.map(() => new Set<number>());
          for (const c of a.cycles) {
            const k = compOf.get(index(c[0]));
            assert.notEqual(k, undefined);
            for (const id of c) {
              assert.equal(compOf.get(index(id)), k);
              covered[k!].add(index(id));
            }
          }
          expected.forEach((comp, k) => assert.deepEqual([...covered[k]].sort((x, y) => x - y), comp));

          // One problem per reported cycle, listing each of its edges, each placed on its blockedBy element.
          const cycleProblems = a.problems.filter((p) => p.code === 'cycle');
          assert.equal(cycleProblems.length, a.cycles.length);
          assert.equal(cycleProblems.reduce((sum, p) => sum + p.edges!.length, 0), a.cycles.reduce((sum, c) => sum + c.length - 1, 0));
          for (const p of cycleProblems) {
            assert.ok(p.edges!.some((e) => e.range.offset === p.range.offset), 'the problem sits on one of its edges');
            for (const e of p.edges!) {
              const quoted = text.slice(e.range.offset, e.range.offset + e.range.length);
              const target = JSON.parse(quoted) as string;
              assert.equal(target, e.waitsOn);
              assert.ok(hasEdge(index(e.storyId), index(target)), `${e.storyId} waits on ${target}`);
              assert.ok(p.cycle!.includes(target) && p.cycle!.includes(e.storyId));
            }
          }

          // Self-loops are self-dependencies, never cycles on their own.
          const selfLoops = [...new Set(edges.filter(([u, v]) => u === v).map(([u]) => `S${u}`))].sort();
          const selfProblems = [...new Set(a.problems.filter((p) => p.code === 'self-dependency').map((p) => p.storyId!))].sort();
          assert.deepEqual(selfProblems, selfLoops);
          assert.ok(a.problems.every((p) => ['cycle', 'self-dependency'].includes(p.code)));
        }),
        RUNS,
      );
    });

    it('readiness leaves exactly the stories that wait (transitively) on a pending cycle unscheduled', () => {
      fc.assert(
        fc.property(graphArb, ({ n, edges, passes }) => {
          const a = analyze(makePrd(toStories(n, edges, passes)));
          const r = a.readiness;
          // Only pending stories wait: a passing blocker is satisfied.
          const reach = reachability(n, edges, (u, v) => !passes[u] && !passes[v]);
          const onCycle = (v: number): boolean => !passes[v] && reach[v][v];
          const stuck = (u: number): boolean => !passes[u] && (onCycle(u) || Array.from({ length: n }, (_, v) => v).some((v) => reach[u][v] && onCycle(v)));
          for (let u = 0; u < n; u++) {
            const st = r.states[u];
            assert.equal(st.runIndex === undefined, passes[u] || stuck(u), `S${u}`);
          }
          const anyPending = passes.some((p) => !p);
          const allStuck = passes.every((p, u) => p || stuck(u));
          assert.equal(r.state, !anyPending ? 'complete' : allStuck ? 'blocked' : 'ready');
          if (r.state === 'blocked') {
            assert.ok(r.explanation.length > 0, 'a blocked plan says why');
          }
          // Scheduled stories still come in dependency order.
          const runnable = r.order.filter((s) => s.runIndex !== undefined);
          const pos = new Map(runnable.map((s, k) => [s.story.id, k]));
          for (const s of runnable) {
            for (const ref of s.story.blockedBy) {
              const p = pos.get(ref.id);
              assert.ok(p === undefined || p < pos.get(s.story.id)!);
            }
          }
          assert.deepEqual(
            runnable.map((s) => s.story.id),
            simulateLoop(a.doc.stories),
          );
        }),
        RUNS,
      );
    });

    it('stronglyConnectedComponents partitions larger graphs exactly like brute force', () => {
      const bigGraph = fc.integer({ min: 1, max: 40 }).chain((n) =>
        fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: n * 2 }).map((edges) => ({ n, edges })),
      );
      fc.assert(
        fc.property(bigGraph, ({ n, edges }) => {
          const adj: number[][] = Array.from({ length: n }, () => []);
          for (const [u, v] of edges) {
            adj[u].push(v);
          }
          const reach = reachability(n, edges, () => true);
          const sccs = stronglyConnectedComponents(adj);
          assert.deepEqual(
            sccs.flat().sort((x, y) => x - y),
            Array.from({ length: n }, (_, i) => i),
          );
          for (const comp of sccs) {
            for (const u of comp) {
              for (let v = 0; v < n; v++) {
                const same = u === v || (reach[u][v] && reach[v][u]);
                assert.equal(comp.includes(v), same);
              }
            }
          }
          for (const comp of cyclicComponents(adj.map((es, u) => es.filter((v) => v !== u)))) {
            const cycles = coveringCycles(adj, comp);
            for (const c of cycles) {
              // A real, simple cycle of at least two nodes inside the component, even with self-loops around.
              assert.ok(c.length >= 3 && c[0] === c[c.length - 1]);
              assert.equal(new Set(c).size, c.length - 1);
              for (let k = 0; k + 1 < c.length; k++) {
                assert.ok(adj[c[k]].includes(c[k + 1]) && comp.includes(c[k]));
              }
            }
            const cover = new Set(cycles.flat());
            assert.deepEqual([...cover].sort((x, y) => x - y), comp);
          }
        }),
        RUNS,
      );
    });

    it('stronglyConnectedComponents handles a 100,000-node chain and cycle without recursion', () => {
      const n = 100_000;
      const chain = Array.from({ length: n }, (_, i) => (i + 1 < n ? [i + 1] : []));
      assert.equal(stronglyConnectedComponents(chain).length, n);
      const ring = Array.from({ length: n }, (_, i) => [(i + 1) % n]);
      const comps = cyclicComponents(ring);
      assert.equal(comps.length, 1);
      assert.equal(comps[0].length, n);
      assert.equal(coveringCycles(ring, comps[0])[0].length, n + 1);
    });
  });

  describe('edits round-trip', () => {
    const extraArb = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 6 }).map((k) => `x-${k}`),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 3 },
    );
    const layoutArb = fc.record({ indent: fc.constantFrom<string | number>(2, 4, '\t', 0), crlf: fc.boolean() });
    interface RandomPrd {
      stories: { passes: boolean; extra: Record<string, unknown>; deps: number[] }[];
      top: Record<string, unknown>;
      layout: { indent: string | number; crlf: boolean };
    }
    const prdArb: fc.Arbitrary<RandomPrd> = fc.record({
      stories: fc.array(fc.record({ passes: fc.boolean(), extra: extraArb, deps: fc.array(fc.nat(), { maxLength: 4 }) }), { minLength: 1, maxLength: 8 }),
      top: extraArb,
      layout: layoutArb,
    });
    const render = ({ stories, top, layout }: RandomPrd): string => {
      const text = makePrd(
        stories.map((s, i) => ({ id: `S${i}`, passes: s.passes, blockedBy: s.deps.map((d) => `S${d % stories.length}`), ...s.extra })),
        top,
        layout.indent,
      );
      return layout.crlf ? text.replace(/\n/g, '\r\n') : text;
    };

    it('setPassesEdits flips exactly that story\'s passes and keeps every other byte of data', () => {
      fc.assert(
        fc.property(prdArb, fc.nat(), fc.boolean(), (prd, k, value) => {
          const text = render(prd);
          const index = k % prd.stories.length;
          const after = applyEdits(text, setPassesEdits(text, index, value));
          const before = JSON.parse(text);
          const parsed = JSON.parse(after);
          assert.equal(parsed.userStories[index].passes, value);
          before.userStories[index].passes = value;
          assert.deepEqual(parsed, before);
          // Text outside the token is untouched.
          const token = (v: boolean): string => (v ? 'true' : 'false');
          const old = prd.stories[index].passes;
          assert.equal(after.length - text.length, token(value).length - token(old).length);
          assert.equal(parsePrd(after).stories[index].passes, value);
        }),
        RUNS,
      );
    });

    it('removeBlockedByEdits removes exactly one element and keeps the rest of the data', () => {
      fc.assert(
        fc.property(prdArb, fc.nat(), fc.nat(), (prd, k, e) => {
          const withDeps = prd.stories.map((s, i) => [i, s.deps.length] as const).filter(([, len]) => len > 0);
          fc.pre(withDeps.length > 0);
          const [index, len] = withDeps[k % withDeps.length];
          const element = e % len;
          const text = render(prd);
          const after = applyEdits(text, removeBlockedByEdits(text, index, element));
          const before = JSON.parse(text);
          before.userStories[index].blockedBy.splice(element, 1);
          assert.deepEqual(JSON.parse(after), before);
          assert.deepEqual(
            parsePrd(after).problems.filter((p) => p.code === 'syntax'),
            [],
          );
        }),
        RUNS,
      );
    });
  });

  describe('fast parse path', () => {
    // JSON written by hand: any whitespace, keys in any order, escaped keys, repeated keys.
    type J = null | boolean | number | string | J[] | { pairs: [string, J][] };
    const wsArb = fc.array(fc.constantFrom('', ' ', '  ', '\n', '\n    ', '\t', '\r\n', '\r\n\t\t'), { minLength: 1, maxLength: 16 });
    const tricky = fc.oneof(
      fc.string({ maxLength: 8, unit: 'grapheme' }),
      fc.constantFrom('', '"', '\\', '\\"', '{', '}', '[', ']', ',', ':', '\u2028', '\ud83d\ude00', '"blockedBy": ["X"]', '\\u0022'),
    );
    const jsonArb: fc.Arbitrary<J> = fc.letrec<{ value: J }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constant(null),
        fc.boolean(),
        fc.integer(),
        tricky,
        fc.array(tie('value'), { maxLength: 3 }),
        fc.array(fc.tuple(tricky.filter((k) => k !== '__proto__'), tie('value')), { maxLength: 3 }).map((pairs) => ({ pairs })),
      ),
    })).value;

    function write(v: J, ws: string[], escapeKeys: boolean): string {
      let k = 0;
      const w = (): string => ws[k++ % ws.length];
      const key = (name: string): string => {
        const plain = JSON.stringify(name);
        if (escapeKeys && /^[A-Za-z0-9]/.test(name) && k % 3 === 0) {
          return `"\\u${name.charCodeAt(0).toString(16).padStart(4, '0')}${plain.slice(2)}`;
        }
        return plain;
      };
      const go = (x: J): string => {
        if (Array.isArray(x)) {
          return `[${w()}${x.map((e) => `${go(e)}${w()}`).join(`,${w()}`)}]`;
        }
        if (x !== null && typeof x === 'object') {
          return `{${w()}${x.pairs.map(([name, e]) => `${key(name)}${w()}:${w()}${go(e)}${w()}`).join(`,${w()}`)}}`;
        }
        return JSON.stringify(x);
      };
      return `${w()}${go(v)}${w()}`;
    }

    const storyArb = fc
      .record({
        title: tricky,
        priority: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true })),
        passes: fc.boolean(),
        description: tricky,
        criteria: fc.array(tricky, { maxLength: 3 }),
        blockedBy: fc.option(fc.array(fc.constantFrom('S0', 'S1', ' S2 ', 'S9', 'x"y', ''), { maxLength: 3 }), { nil: undefined }),
        aliases: fc.subarray(['dependsOn', 'dependencies', 'depends_on'] as const),
        aliasIds: fc.array(fc.constantFrom('S0', 'S1', 'S9', 3), { maxLength: 2 }),
        notes: fc.option(tricky, { nil: undefined }),
        files: fc.option(fc.oneof(fc.array(fc.oneof(tricky, fc.constant(3)), { maxLength: 2 }), tricky), { nil: undefined }),
        extras: fc.array(fc.tuple(tricky.map((k) => `x-${k}`), jsonArb), { maxLength: 2 }),
        // Earlier copies of keys that a later, valid value overrides.
        repeats: fc.subarray(['id', 'passes', 'blockedBy', 'dependsOn', 'acceptanceCriteria', 'title'] as const),
        junk: jsonArb,
        order: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
      })
      .map((r) => (i: number): J => {
        const pairs: [string, J][] = [
          ['id', `S${i}`],
          ['title', r.title],
          ['priority', r.priority],
          ['passes', r.passes],
          ['description', r.description],
          ['acceptanceCriteria', r.criteria],
          ...(r.blockedBy ? ([['blockedBy', r.blockedBy]] as [string, J][]) : []),
          ...r.aliases.map((k): [string, J] => [k, r.aliasIds]),
          ...(r.notes !== undefined ? ([['notes', r.notes]] as [string, J][]) : []),
          ...(r.files !== undefined ? ([['files', r.files]] as [string, J][]) : []),
          ...r.extras,
        ];
        // Shuffle, then put the repeated keys' junk copies first so the valid copy comes last.
        const shuffled = pairs.map((p, k) => [r.order[k % r.order.length] + k / 100, p] as const).sort((a, b) => a[0] - b[0]).map(([, p]) => p);
        const repeated = r.repeats.filter((name) => pairs.some(([k]) => k === name));
        return { pairs: [...repeated.map((name): [string, J] => [name, r.junk]), ...shuffled] };
      });

    const prdArb = fc.record({
      stories: fc.array(storyArb, { maxLength: 6 }),
      top: fc.array(fc.tuple(fc.constantFrom('projectName', 'branchName', 'description', 'x-a', 'x-b'), tricky), { maxLength: 3 }),
      ws: wsArb,
      escapeKeys: fc.boolean(),
      bom: fc.boolean(),
    });

    it('gives exactly the parse-tree result for valid files, and is taken for them', () => {
      fc.assert(
        fc.property(prdArb, ({ stories, top, ws, escapeKeys, bom }) => {
          const root: J = { pairs: [...top, ['userStories', stories.map((make, i) => make(i))]] };
          const text = (bom ? '\ufeff' : '') + write(root, ws, escapeKeys);
          const body = bom ? text.slice(1) : text;
          assert.ok(scanStoryLocators(body, new LineIndex(body)), `the fast path accepts a valid file: ${body}`);
          assert.deepEqual(parsePrd(text), parsePrdWithTree(text));
        }),
        { numRuns: 300 },
      );
    });

    it('generates every key of the story schema (a new schema key must be added to this property test)', () => {
      const seen = new Set<string>();
      for (const make of fc.sample(storyArb, { numRuns: 300, seed: 7 })) {
        for (const [k] of (make(0) as { pairs: [string, J][] }).pairs) {
          seen.add(k);
        }
      }
      const missing = Object.keys(userStorySchema.shape).filter((k) => !seen.has(k));
      assert.deepEqual(missing, [], 'schema keys the fast/tree property test never generates');
    });

    it('falls back to the parse tree for everything else, with the same result', () => {
      const base = makePrd([{ id: 'A', blockedBy: ['B'], 'x-n': { a: '"}' } }, { id: 'B', passes: true }, { id: 'C', blockedBy: ['A', 'Z'] }]);
      const edits = fc.array(
        fc.record({
          at: fc.nat(),
          del: fc.nat(4),
          ins: fc.constantFrom('', '{', '}', '[', ']', ',', '"', ':', '\\', ' ', '5', 'true', '"userStories": [],', '"__proto__": 1,', '"id": 3,'),
        }),
        { minLength: 1, maxLength: 3 },
      );
      fc.assert(
        fc.property(edits, (muts) => {
          let text = base;
          for (const m of muts) {
            const at = m.at % (text.length + 1);
            text = text.slice(0, at) + m.ins + text.slice(at + m.del);
          }
          assert.deepEqual(parsePrd(text), parsePrdWithTree(text));
        }),
        { numRuns: 400 },
      );
    });

    it('leaves repeated userStories keys and __proto__ keys to the parse tree', () => {
      for (const text of [
        '{"userStories": [{"id": "A"}], "userStories": []}',
        '{"userStories": [], "__proto__": {"userStories": 1}}',
        '{"userStories": [{"id": "A", "title": "", "priority": 1, "passes": false, "description": "", "acceptanceCriteria": [], "\\u005f_proto__": 1}]}',
      ]) {
        assert.equal(scanStoryLocators(text, new LineIndex(text)), undefined, text);
        assert.deepEqual(parsePrd(text), parsePrdWithTree(text));
      }
    });
  });

  describe('robustness', () => {
    const base = makePrd([
      { id: 'A', blockedBy: ['B'] },
      { id: 'B', passes: true, title: 'Ünïcödé 😀' },
      { id: 'C', blockedBy: ['A', 'Z'] },
    ]);

    it('never throws on mangled files, and every problem points inside the text', () => {
      const mutation = fc.array(
        fc.record({ at: fc.nat(), del: fc.nat(3), ins: fc.constantFrom('', '{', '}', '[', ']', ',', '"', ':', '\n', '\r', '\ud800', 'x', '// c\n', '1e') }),
        { minLength: 1, maxLength: 4 },
      );
      fc.assert(
        fc.property(mutation, (muts) => {
          let text = base;
          for (const m of muts) {
            const at = m.at % (text.length + 1);
            text = text.slice(0, at) + m.ins + text.slice(at + m.del);
          }
          const a = analyze(text);
          const body = a.doc.text;
          for (const p of a.problems) {
            assert.ok(p.range.offset >= 0 && p.range.offset <= body.length, `${p.code} offset in range`);
            assert.deepEqual(p.range.start, a.doc.lines.positionAt(p.range.offset));
            assert.ok(p.message.length > 0);
          }
          assert.equal(a.readiness.states.length, a.doc.stories.length);
        }),
        { numRuns: 300 },
      );
    });

    it('never throws on arbitrary text', () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 60, unit: 'binary' }), (text) => {
          const a = analyze(text);
          assert.equal(a.readable, a.problems.length === 0 && a.doc.hasStories);
        }),
        { numRuns: 300 },
      );
    });

    it('firstInvalidUtf8 agrees with a strict UTF-8 decoder on random bytes', () => {
      const strict = new TextDecoder('utf-8', { fatal: true });
      const bytes = fc.oneof(
        fc.uint8Array({ maxLength: 12 }),
        // Mostly valid text with one random byte spliced in.
        fc.tuple(fc.string({ maxLength: 8, unit: 'grapheme' }), fc.nat(), fc.integer({ min: 0, max: 255 })).map(([s, at, b]) => {
          const u = new TextEncoder().encode(s);
          const out = new Uint8Array(u.length + 1);
          const k = at % (u.length + 1);
          out.set(u.subarray(0, k), 0);
          out[k] = b;
          out.set(u.subarray(k), k + 1);
          return out;
        }),
      );
      fc.assert(
        fc.property(bytes, (b) => {
          const bad = firstInvalidUtf8(b);
          let valid = true;
          try {
            strict.decode(b);
          } catch {
            valid = false;
          }
          assert.equal(bad === -1, valid);
          if (bad >= 0) {
            // Everything before the reported byte is well-formed.
            strict.decode(b.subarray(0, bad));
          }
        }),
        { numRuns: 500 },
      );
    });

    it('MinHeap pops in comparator order', () => {
      fc.assert(
        fc.property(fc.array(fc.integer()), (xs) => {
          const h = new MinHeap<number>((a, b) => a - b);
          xs.forEach((x) => h.push(x));
          const out: number[] = [];
          while (h.size > 0) {
            out.push(h.pop()!);
          }
          assert.deepEqual(out, [...xs].sort((a, b) => a - b));
          assert.equal(h.pop(), undefined);
        }),
        RUNS,
      );
    });
  });

  describe('the check next and ready make before validating', () => {
    // Ids from a small alphabet, so duplicates, unknown ids, self-dependencies and cycles are common.
    const messyArb = fc.array(
      fc.record({ id: fc.constantFrom('A', 'B', 'C', 'D', 'E'), deps: fc.array(fc.constantFrom('A', 'B', 'C', 'D', 'E', 'X'), { maxLength: 3 }), passes: fc.boolean() }),
      { maxLength: 8 },
    );

    it('graphIsClean is true exactly when validatePrd adds no problem, and analyzePrdForReadiness agrees with analyzePrd', () => {
      fc.assert(
        fc.property(messyArb, (specs) => {
          const text = makePrd(specs.map((s) => ({ id: s.id, passes: s.passes, blockedBy: [...new Set(s.deps)] })));
          const doc = parsePrd(text);
          const validated = validatePrd(doc);
          assert.equal(graphIsClean(doc.stories, buildStoryGraph(doc.stories)), validated.problems.length === doc.problems.length);
          const full = analyzePrd(text);
          const once = analyzePrdForReadiness(text);
          assert.deepEqual(once.problems, full.problems);
          assert.deepEqual([once.readable, once.errors, once.warnings, once.cycles], [full.readable, full.errors, full.warnings, full.cycles]);
          assert.deepEqual(
            [once.readiness.state, once.readiness.next?.story.id, once.readiness.blocked, once.readiness.explanation],
            [full.readiness.state, full.readiness.next?.story.id, full.readiness.blocked, full.readiness.explanation],
          );
        }),
        { numRuns: 500 },
      );
    });
  });
});

