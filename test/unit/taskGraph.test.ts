/**
 * The task-graph model (waves, unschedulable stories, critical path, unblocks) checked against
 * brute-force references on random graphs with cycles, self-loops and unknown ids (fast-check),
 * plus the formats and the `graph` CLI command.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { graphJson, graphMermaid, graphText } from '../../src/core/taskGraph/format';
import { GraphMessageBuilder } from '../../src/core/taskGraph/message';
import { cycleClosedBy, lineage } from '../../src/core/prd/schedule';
import { buildTaskGraph, taskGraphOf, type TaskGraph } from '../../src/core/taskGraph/model';
import { analyze, cli, makePrd, type StoryInput } from './helpers';

const RUNS = { numRuns: 200 };

const idOf = (i: number): string => `S${(i * 37) % 101}`;

/** Random graphs: any story may wait on any other (cycles and self-loops included), sometimes on an unknown id. */
const graphArb = fc
  .array(
    fc.record({
      passes: fc.boolean(),
      priority: fc.integer({ min: 0, max: 3 }),
      deps: fc.array(fc.nat(), { maxLength: 3 }),
      unknown: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
    { maxLength: 25 },
  )
  .map((specs): StoryInput[] =>
    specs.map((s, i) => ({
      id: idOf(i),
      passes: s.passes,
      priority: s.priority,
      blockedBy: [...s.deps.map((d) => idOf(d % specs.length)), ...(s.unknown ? ['NOPE-1'] : [])],
    })),
  );

/** Mostly acyclic graphs: a story waits on earlier ones only, so chains are long. */
const dagArb = fc
  .array(fc.record({ passes: fc.boolean(), deps: fc.array(fc.nat(), { maxLength: 3 }) }), { maxLength: 30 })
  .map((specs): StoryInput[] => specs.map((s, i) => ({ id: idOf(i), passes: s.passes, priority: 1, blockedBy: i === 0 ? [] : s.deps.map((d) => idOf(d % i)) })));

function graphOf(stories: StoryInput[]): TaskGraph {
  return taskGraphOf(analyze(makePrd(stories)));
}

/** Which unfinished stories can ever run: a fixed point of "every dependency is a story that passes or can run". */
function referenceSchedulable(stories: StoryInput[]): Set<string> {
  const byId = new Map(stories.map((s) => [s.id, s]));
  const can = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const s of stories) {
      if (s.passes || can.has(s.id)) {
        continue;
      }
      const ok = (s.blockedBy ?? []).every((d) => d !== s.id && byId.has(d) && (byId.get(d)?.passes || can.has(d)));
      if (ok) {
        can.add(s.id);
        changed = true;
      }
    }
  }
  return can;
}

describe('task graph model', () => {
  it('puts every unfinished story in exactly one wave or in unschedulable, and no done story anywhere', () => {
    fc.assert(
      fc.property(graphArb, (stories) => {
        const g = graphOf(stories);
        const placed = [...g.waves.flat(), ...g.unschedulable];
        assert.equal(new Set(placed).size, placed.length);
        const unfinished = g.nodes.filter((n) => n.state !== 'done').map((n) => n.index);
        assert.deepEqual([...placed].sort((a, b) => a - b), unfinished);
        const expected = referenceSchedulable(stories);
        assert.deepEqual(new Set(g.waves.flat().map((i) => g.nodes[i].id)), expected);
        for (const i of g.unschedulable) {
          assert.equal(g.nodes[i].state, 'invalid');
        }
      }),
      RUNS,
    );
  });

  it('waves respect every edge: a blocker runs in an earlier wave, and each wave is as early as it can be', () => {
    fc.assert(
      fc.property(graphArb, (stories) => {
        const g = graphOf(stories);
        for (const e of g.edges) {
          const a = g.nodes[e.from];
          const b = g.nodes[e.to];
          if (b.wave !== undefined && a.state !== 'done') {
            assert.ok(a.wave !== undefined && a.wave < b.wave, `${a.id} (wave ${a.wave}) → ${b.id} (wave ${b.wave})`);
          }
        }
        for (const n of g.nodes) {
          if (n.wave === undefined) {
            continue;
          }
          const blockerWaves = g.blockers[n.index].map((j) => g.nodes[j]).filter((b) => b.state !== 'done').map((b) => b.wave as number);
          assert.equal(n.wave, blockerWaves.length === 0 ? 0 : Math.max(...blockerWaves) + 1);
          assert.equal(n.state === 'ready' || n.state === 'next', n.wave === 0);
        }
      }),
      RUNS,
    );
  });

  it('the critical path is a chain of unfinished stories along edges, and a longest one', () => {
    fc.assert(
      fc.property(graphArb, (stories) => {
        const g = graphOf(stories);
        const p = g.criticalPath;
        // Longest chain among schedulable stories = number of waves (a wave-k story has a chain of k blockers).
        assert.equal(p.length, g.waves.length);
        for (const i of p) {
          assert.ok(g.nodes[i].wave !== undefined && g.nodes[i].critical);
        }
        for (let k = 0; k + 1 < p.length; k++) {
          assert.ok(g.blockers[p[k + 1]].includes(p[k]), `${g.nodes[p[k]].id} does not block ${g.nodes[p[k + 1]].id}`);
          assert.ok(g.edges.some((e) => e.from === p[k] && e.to === p[k + 1] && e.critical));
        }
        assert.equal(g.nodes.filter((n) => n.critical).length, p.length);
      }),
      RUNS,
    );
  });

  it('the critical path matches a brute-force longest path on DAGs', () => {
    fc.assert(
      fc.property(dagArb, (stories) => {
        const g = graphOf(stories);
        const memo = new Map<number, number>();
        const longest = (v: number): number => {
          if (memo.has(v)) {
            return memo.get(v) as number;
          }
          const r = 1 + Math.max(0, ...g.blockers[v].filter((j) => g.nodes[j].state !== 'done').map(longest));
          memo.set(v, r);
          return r;
        };
        const best = Math.max(0, ...g.nodes.filter((n) => n.state !== 'done').map((n) => longest(n.index)));
        assert.equal(g.criticalPath.length, best);
      }),
      RUNS,
    );
  });

  it('unblocks counts unfinished stories that wait on a story, directly and transitively', () => {
    fc.assert(
      fc.property(graphArb, (stories) => {
        const g = graphOf(stories);
        for (const n of g.nodes) {
          if (n.state === 'done') {
            assert.deepEqual(n.unblocks, { direct: 0, total: 0 });
            continue;
          }
          const direct = new Set(g.dependents[n.index].filter((d) => g.nodes[d].state !== 'done'));
          const seen = new Set<number>();
          const stack = [n.index];
          while (stack.length > 0) {
            for (const d of g.dependents[stack.pop() as number]) {
              if (!seen.has(d)) {
                seen.add(d);
                stack.push(d);
              }
            }
          }
          seen.delete(n.index);
          const total = [...seen].filter((d) => g.nodes[d].state !== 'done').length;
          assert.deepEqual(n.unblocks, { direct: direct.size, total }, n.id);
        }
      }),
      RUNS,
    );
  });

  it('cycleClosedBy refuses exactly the edges that would close a cycle, and shows the cycle', () => {
    fc.assert(
      fc.property(dagArb, fc.nat(), fc.nat(), (stories, a, b) => {
        fc.pre(stories.length > 0);
        const g = graphOf(stories);
        const story = a % stories.length;
        const blocker = b % stories.length;
        const cycle = cycleClosedBy(g, story, blocker);
        const { descendants } = lineage(g, story);
        assert.equal(cycle !== undefined, story === blocker || descendants.has(blocker));
        if (cycle) {
          assert.equal(cycle[0], story);
          assert.equal(cycle[cycle.length - 1], story);
          assert.equal(cycle[cycle.length - 2], blocker);
          for (let k = 0; k + 2 < cycle.length; k++) {
            assert.ok(g.dependents[cycle[k]].includes(cycle[k + 1]));
          }
        }
      }),
      RUNS,
    );
  });

  it('marks cycles, and the stories behind them, as unschedulable; a 500-story cycle included', () => {
    const n = 500;
    const stories = Array.from({ length: n }, (_, i) => ({ id: `C-${i}`, blockedBy: [`C-${(i + n - 1) % n}`] }));
    stories.push({ id: 'AFTER', blockedBy: ['C-0'] });
    const g = graphOf(stories);
    assert.equal(g.unschedulable.length, n + 1);
    assert.equal(g.waves.length, 0);
    assert.equal(g.nodes.filter((x) => x.inCycle).length, n);
    assert.equal(g.nodes[n].inCycle, false);
    assert.equal(g.edges.filter((e) => e.inCycle).length, n);
    assert.equal(g.nodes[0].unblocks.total, n); // the other 499 and AFTER
  });

  it('one schedule: the graph shows the ready, next and never-runnable stories the tree and the CLI list, duplicate ids included', () => {
    // Ids drawn from a small pool, so duplicates (one copy passing, another not) are common.
    const dupArb = fc
      .array(fc.record({ id: fc.nat({ max: 6 }), passes: fc.boolean(), priority: fc.integer({ min: 0, max: 3 }), deps: fc.array(fc.nat({ max: 7 }), { maxLength: 3 }) }), { maxLength: 14 })
      .map((specs): StoryInput[] => specs.map((s) => ({ id: `D${s.id}`, passes: s.passes, priority: s.priority, blockedBy: s.deps.map((d) => `D${d}`) })));
    fc.assert(
      fc.property(dupArb, (stories) => {
        const analysis = analyze(makePrd(stories));
        const r = analysis.readiness;
        const g = taskGraphOf(analysis);
        const indexOf = (st: { story: unknown }): number => analysis.doc.stories.indexOf(st.story as never);
        assert.deepEqual(g.waves[0] ?? [], r.ready.map(indexOf), 'wave 1 is the ready stories, in run order');
        assert.deepEqual(g.nodes.filter((n) => n.state === 'next').map((n) => n.index), r.next ? [indexOf(r.next)] : []);
        const stuck = r.order.filter((st) => !st.story.passes && st.runIndex === undefined).map(indexOf);
        assert.deepEqual(g.unschedulable, stuck, 'the unschedulable stories are the ones the run order never reaches');
        for (const st of r.states) {
          assert.equal(g.nodes[indexOf(st)].state === 'blocked', st.status === 'blocked' && st.runIndex !== undefined, st.story.id);
        }
      }),
      RUNS,
    );
  });

  it('names a story without an id by its position and keeps duplicates as nodes', () => {
    const g = buildTaskGraph(analyze(makePrd([{ id: 'A' }, { id: 'A' }, { id: '' }])).doc.stories);
    assert.deepEqual(g.nodes.map((x) => x.id), ['A', 'A', '#3']);
    assert.equal(g.byId.get('A'), 0);
  });
});

describe('task graph formats', () => {
  const demo: StoryInput[] = [
    { id: 'US-001', title: 'Schema', passes: true },
    { id: 'US-002', title: 'API', priority: 2, blockedBy: ['US-001'] },
    { id: 'US-003', title: 'Badge', priority: 1, blockedBy: ['US-001'] },
    { id: 'US-004', title: 'Selector', priority: 3, blockedBy: ['US-002', 'US-003'] },
    { id: 'US-005', title: 'Loop A', blockedBy: ['US-006'] },
    { id: 'US-006', title: 'Loop B', blockedBy: ['US-005'] },
  ];

  it('text: the layered list, numbered from wave 1, then unschedulable with why, the critical path and what unblocks the most', () => {
    const text = graphText(graphOf(demo));
    assert.equal(
      text,
      [
        '6 stories: 1 done, 3 to run in 2 waves, 2 unschedulable.',
        'Wave 1: US-003, US-002 (2 stories can run in parallel)',
        'Wave 2: US-004',
        'Unschedulable: US-005, US-006',
        '  US-005: in a dependency cycle',
        '  US-006: in a dependency cycle',
        'Critical path (2 stories): US-003 → US-004',
        'Unblocks the most: US-002 (1), US-003 (1), US-005 (1), US-006 (1)',
        '',
      ].join('\n'),
    );
  });

  it('json: waves, unschedulable, criticalPath and unblocks as the issue states', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(graphJson(graphOf(demo)))), {
      waves: [['US-003', 'US-002'], ['US-004']],
      unschedulable: ['US-005', 'US-006'],
      criticalPath: ['US-003', 'US-004'],
      unblocks: {
        'US-001': { direct: 0, total: 0 },
        'US-002': { direct: 1, total: 1 },
        'US-003': { direct: 1, total: 1 },
        'US-004': { direct: 0, total: 0 },
        'US-005': { direct: 1, total: 1 },
        'US-006': { direct: 1, total: 1 },
      },
    });
  });

  it('mermaid: generated node names, escaped labels, edges from blocker to blocked', () => {
    const m = graphMermaid(graphOf([{ id: '<img src=x onerror=alert(1)>', title: 'a "quoted" [title]' }, { id: 'B', blockedBy: ['<img src=x onerror=alert(1)>'] }]));
    assert.match(m, /^flowchart LR\n/);
    assert.ok(m.includes('n0["#60;img src=x onerror=alert(1)#62;: a #34;quoted#34; #91;title#93;"]:::next'), m);
    assert.ok(m.includes('  n0 --> n1\n'));
    assert.ok(!m.includes('<img'));
  });

  it('an empty backlog and a finished one', () => {
    assert.equal(graphText(graphOf([])), 'No stories in prd.json.\n');
    assert.match(graphText(graphOf([{ id: 'A', passes: true }])), /Every story passes\.\n$/);
  });
});

describe('CLI graph', () => {
  const prd = makePrd([
    { id: 'US-001', passes: true },
    { id: 'US-002', blockedBy: ['US-001'] },
    { id: 'US-003', blockedBy: ['US-002'] },
  ]);

  it('prints the text form by default, and json and mermaid on request', () => {
    const text = cli(['graph', '--prd', 'p.json'], { 'p.json': prd });
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^Wave 1: US-002$/m);
    assert.match(text.stdout, /^Wave 2: US-003$/m);
    const json = cli(['graph', '--prd', 'p.json', '--format', 'json'], { 'p.json': prd });
    assert.deepEqual(JSON.parse(json.stdout).waves, [['US-002'], ['US-003']]);
    assert.deepEqual(JSON.parse(json.stdout).criticalPath, ['US-002', 'US-003']);
    const mermaid = cli(['--prd=p.json', 'graph', '--format=mermaid'], { 'p.json': prd });
    assert.equal(mermaid.code, 0);
    assert.match(mermaid.stdout, /^flowchart LR/);
  });

  it('reads ./prd.json by default and says what is wrong with a bad file or option', () => {
    assert.equal(cli(['graph'], { 'prd.json': prd }).code, 0);
    const missing = cli(['graph', '--prd', 'nope.json']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read nope\.json: no such file/);
    const bad = cli(['graph', '--prd', 'p.json'], { 'p.json': '{"userStories": [' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /p\.json:1:\d+: error: JSON syntax error/);
    const fmt = cli(['graph', '--format', 'dot'], { 'prd.json': prd });
    assert.equal(fmt.code, 1);
    assert.match(fmt.stderr, /--format must be text, mermaid or json/);
    assert.equal(cli(['graph', '--bogus']).code, 1);
    assert.match(cli(['graph', '--help']).stdout, /Usage: ralph-workbench graph/);
  });
});

describe('task graph message (host → page)', () => {
  const stories: StoryInput[] = [{ id: 'A', passes: true }, { id: 'B', blockedBy: ['A'] }, { id: 'C', blockedBy: ['B'] }];

  it('a status-only change keeps the layout (none is sent); a new edge or direction lays out again', () => {
    const b = new GraphMessageBuilder();
    const first = b.build(analyze(makePrd(stories)), 'prd.json', 'LR');
    assert.ok(first.layout);
    assert.equal(b.layoutRuns, 1);
    const passed = b.build(analyze(makePrd(stories.map((s) => (s.id === 'B' ? { ...s, passes: true, title: 'Renamed' } : s)))), 'prd.json', 'LR');
    assert.equal(passed.layout, undefined);
    assert.equal(passed.layoutId, first.layoutId);
    assert.equal(b.layoutRuns, 1);
    assert.equal(passed.nodes[1].state, 'done');
    const edge = b.build(analyze(makePrd([...stories, { id: 'D', blockedBy: ['A', 'C'] }])), 'prd.json', 'LR');
    assert.ok(edge.layout && edge.layoutId > first.layoutId);
    const tb = b.build(analyze(makePrd([...stories, { id: 'D', blockedBy: ['A', 'C'] }])), 'prd.json', 'TB');
    assert.equal(tb.layout?.direction, 'TB');
    assert.equal(b.layoutRuns, 3);
  });

  it('an unreadable prd.json sends the last good picture, marked stale, with the problems and where', () => {
    const b = new GraphMessageBuilder();
    b.build(analyze(makePrd(stories)), 'prd.json', 'LR');
    const stale = b.build(analyze('{"userStories": [ {"id": "A",, } ]}'), 'prd.json', 'LR');
    assert.equal(stale.stale, true);
    assert.equal(stale.nodes.length, 3);
    assert.ok(stale.problems.length > 0);
    assert.equal(stale.problems[0].line, 1);
    const never = new GraphMessageBuilder().build(analyze('not json'), 'prd.json', 'LR');
    assert.equal(never.stale, true);
    assert.equal(never.nodes.length, 0);
  });
});
