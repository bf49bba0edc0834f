/**
 * The task-graph page never goes blank (issue 16, item 11): every message the host builds from a
 * hostile workspace (huge ids and titles, thousands of criteria, long cycles, many and long
 * artifact warnings from issue comments) passes the page's own schema, and what had to be
 * shortened says so in the picture.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { addDependencyEdits } from '../../src/core/prd/graphEdits';
import { analyzePrd } from '../../src/core/prd/index';
import { GraphMessageBuilder } from '../../src/core/taskGraph/message';
import { detailsMessage, noticeMessage, PageKeys, pageKey, runMessage, selectMessage } from '../../src/core/taskGraph/pageMessages';
import { type ArtifactBadgeDto, countdown, PAGE_LIMITS, parseHostMessage, parsePageMessage, waitsOf } from '../../src/core/webview/graphProtocol';

interface HostileStory {
  id: string;
  title: string;
  description: string;
  acceptanceCriteria: string[];
  passes: boolean;
  blockedBy: string[];
}

interface Hostile {
  stories: HostileStory[];
  /** A chain C0 ← C1 ← … (each waits on the one before): adding C0 → last would close a cycle this long. */
  chain: number;
  /** The chain's last story also blocks its first: a cycle in the picture. */
  closed: boolean;
  warnings: { count: number; length: number };
}

const longText = (min: number, max: number, ch: string): fc.Arbitrary<string> => fc.integer({ min, max }).map((n) => ch.repeat(n));

const storyArb = (k: number): fc.Arbitrary<HostileStory> =>
  fc.record({
    id: fc.oneof(
      fc.constant(`US-${k}`),
      longText(501, 1_500, 'i').map((s) => `${s}-${k}`),
      // the same long start for every story: only the end tells them apart
      fc.constant(`${'p'.repeat(800)}-${k}`),
      fc.constantFrom('constructor', '__proto__', 'toString').map((s) => `${s}${k === 0 ? '' : k}`),
    ),
    title: fc.oneof(fc.string({ maxLength: 20 }), longText(100_001, 130_000, 't')),
    description: fc.oneof(fc.string({ maxLength: 20 }), longText(100_001, 120_000, 'd')),
    acceptanceCriteria: fc.oneof(
      fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
      fc.integer({ min: 1_001, max: 4_800 }).map((n) => Array.from({ length: n }, (_, i) => `criterion ${i}`)),
      longText(10_001, 110_000, 'c').map((c) => [c]),
    ),
    passes: fc.boolean(),
    blockedBy: fc.array(fc.oneof(fc.nat(12).map((i) => `US-${i}`), longText(501, 900, 'u')), { maxLength: 3 }),
  });

const hostileArb: fc.Arbitrary<Hostile> = fc.record({
  stories: fc.integer({ min: 1, max: 6 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, k) => storyArb(k)))),
  chain: fc.oneof(fc.constant(0), fc.integer({ min: 200, max: 420 })),
  closed: fc.boolean(),
  warnings: fc.record({ count: fc.integer({ min: 0, max: 40 }), length: fc.integer({ min: 1, max: 1_200 }) }),
});

/** The prd.json of a hostile workspace; the chain's ids are as long as ids get before they need a key. */
function prdOf(h: Hostile): { text: string; chainIds: string[] } {
  const chainIds = Array.from({ length: h.chain }, (_, i) => `C-${String(i).padStart(4, '0')}`);
  const chain = chainIds.map((id, i) => ({
    id,
    title: id,
    passes: false,
    blockedBy: i > 0 ? [chainIds[i - 1]] : h.closed ? [chainIds[chainIds.length - 1]] : [],
  }));
  return { text: JSON.stringify({ userStories: [...h.stories, ...chain] }, null, 2), chainIds };
}

function assertAccepted(message: unknown, what: string): void {
  const r = parseHostMessage(message);
  assert.ok(r.ok, `${what}: the page refused it: ${r.ok ? '' : r.error}`);
}

describe('task graph: every message the host builds passes the page’s schema', () => {
  it('graph messages from hostile workspaces (huge ids and titles, long cycles, artifact warnings from comments)', () => {
    fc.assert(
      fc.property(hostileArb, (h) => {
        const { text } = prdOf(h);
        const analysis = analyzePrd(text);
        const badge: ArtifactBadgeDto = {
          issue: 7,
          research: 'linked',
          plan: 'missing',
          review: 'missing',
          implementation: 'missing',
          warnings: Array.from({ length: h.warnings.count }, (_, i) => `${i}`.padEnd(h.warnings.length, 'w')),
        };
        const builder = new GraphMessageBuilder();
        const message = builder.build(analysis, 'prd.json', 'LR', (n) => ({ ...n, artifacts: badge }));
        assertAccepted(message, 'the graph message');
        assert.equal(message.nodes.length, analysis.doc.stories.length, 'every story is in the picture');
        // an unreadable prd.json afterwards: the last good picture, stale, with the problems
        const stale = builder.build(analyzePrd(`${text.slice(0, -1)},`), 'prd.json', 'LR');
        assertAccepted(stale, 'the stale graph message');
      }),
      { numRuns: 40 },
    );
  });

  it('details, run, select and notice messages; the keys of long ids lead back to the stories', () => {
    fc.assert(
      fc.property(hostileArb, (h) => {
        const { text, chainIds } = prdOf({ ...h, closed: false });
        const stories = analyzePrd(text).doc.stories;
        const keys = new PageKeys(stories.map((s) => s.id));
        const seen = new Map<string, string>();
        for (const s of stories) {
          assertAccepted(detailsMessage(1, s), `the details of ${s.id.slice(0, 40)}`);
          assertAccepted(selectMessage(s.id), 'a select message');
          const key = pageKey(s.id);
          assert.equal(keys.idOf(key), s.id, 'the key leads back to the id');
          assert.ok(!seen.has(key) || seen.get(key) === s.id, 'two ids never share a key');
          seen.set(key, s.id);
        }
        const outcomes = new Map(stories.map((s, i) => [s.id, i % 2 === 0 ? 'passed' : 'x'.repeat(300)]));
        assertAccepted(runMessage({ running: true, stories: stories.map((s, i) => ({ storyId: s.id, iteration: i, maxIterations: 3, startedAt: 0 })) }, outcomes), 'the run message');
        if (chainIds.length > 0) {
          // the refusal of the edge that would close a cycle of hundreds of stories
          const r = addDependencyEdits(text, chainIds[0], chainIds[chainIds.length - 1]);
          assert.equal(r.ok, false);
          assertAccepted(noticeMessage(2, 'error', r.ok ? '' : r.message, r.ok ? undefined : r.cycle), 'the cycle notice');
        }
      }),
      { numRuns: 40 },
    );
  });

  it('says in the picture what it shortened: the full length of a title, how many criteria are left out', () => {
    const text = JSON.stringify({ userStories: [{ id: `L-${'9'.repeat(700)}`, title: 't'.repeat(150_000), acceptanceCriteria: Array.from({ length: 4_800 }, (_, i) => `c${i}`), description: 'short' }] });
    const analysis = analyzePrd(text);
    const node = new GraphMessageBuilder().build(analysis, 'prd.json', 'LR').nodes[0];
    assert.match(node.title, /^t+… \(150,000 characters\)$/);
    assert.equal(node.titleTruncated, true);
    assert.match(node.id, /^L-9+… \(702 characters, #[0-9a-f]{8}\)$/);
    const details = detailsMessage(1, analysis.doc.stories[0]);
    assert.ok(details.type === 'details');
    assert.equal(details.acceptanceCriteria.length, 1_000);
    assert.equal(details.acceptanceCriteria.at(-1), '… 3,801 more');
    assert.deepEqual(details.truncated, ['acceptanceCriteria']);
    assert.equal(details.description, 'short');
  });
});

describe('task graph: the run message marks every running story (issue 19)', () => {
  const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);

  it('carries the serial run’s story and each parallel story, each with its i/N and start; a story named twice is marked once', () => {
    const m = runMessage(
      {
        running: true,
        stories: [
          { storyId: 'US-006', iteration: 1, maxIterations: 1, startedAt: T0 },
          { storyId: 'US-001', iteration: 2, maxIterations: 10, startedAt: T0 + 1_000 },
          { storyId: 'US-002', iteration: 3, maxIterations: 10 },
          { storyId: 'US-001', iteration: 9, maxIterations: 9, startedAt: T0 + 9_000 },
        ],
      },
      new Map(),
    );
    assertAccepted(m, 'the run message');
    assert.deepEqual(m.stories, [
      { storyId: 'US-006', iteration: 1, maxIterations: 1, startedAt: T0 },
      { storyId: 'US-001', iteration: 2, maxIterations: 10, startedAt: T0 + 1_000 },
      { storyId: 'US-002', iteration: 3, maxIterations: 10, startedAt: undefined },
    ]);
    assert.equal(m.running, true);
    assert.equal(m.more, undefined);
  });

  it('a run that waits out its agent\'s limit carries when it resumes, validated on arrival; the countdown reads as a clock', () => {
    const m = runMessage({ running: true, stories: [{ storyId: 'US-006', iteration: 1, maxIterations: 1, startedAt: T0, resumesAt: T0 + 754_000 }, { storyId: 'US-007', resumesAt: Number.NaN }] }, new Map());
    assertAccepted(m, 'the run message');
    assert.equal(m.stories[0].resumesAt, T0 + 754_000);
    assert.equal('resumesAt' in m.stories[1], false, 'a time that is not a number is left out');
    assert.equal(parseHostMessage({ ...m, stories: [{ storyId: 'US-006', resumesAt: 'soon' }] }).ok, false, 'the page refuses a countdown that is not a number');
    assert.deepEqual([countdown(754_000), countdown(3_723_000), countdown(-5)], ['12:34', '1:02:03', '0:00']);
  });

  it('within the page’s limits: beyond them the running stories are counted in `more`; long ids go by key; an odd count is unknown', () => {
    const long = `L-${'x'.repeat(900)}`;
    const many = Array.from({ length: PAGE_LIMITS.running + 50 }, (_, i) => ({ storyId: i === 0 ? long : `US-${i}`, iteration: i === 1 ? -1 : i === 2 ? Number.NaN : 1, maxIterations: i === 3 ? 1.5 : 4, startedAt: i === 4 ? Number.POSITIVE_INFINITY : T0 }));
    const m = runMessage({ running: false, stories: many }, new Map());
    assertAccepted(m, 'the run message of 150 running stories');
    assert.equal(m.stories.length, PAGE_LIMITS.running);
    assert.equal(m.more, 50, 'the stories beyond the limit are counted');
    assert.equal(m.running, true, 'a story runs, so a run is under way');
    assert.equal(m.stories[0].storyId, pageKey(long));
    assert.equal(new PageKeys([long]).idOf(m.stories[0].storyId), long, 'the key of the mark leads back to the story');
    assert.equal(m.stories[1].iteration, undefined);
    assert.equal(m.stories[2].iteration, undefined);
    assert.equal(m.stories[3].maxIterations, undefined);
    assert.equal(m.stories[4].startedAt, undefined);
  });

  it('says why each ready story that does not run waits: a few words and the sentence per story, by key, none for a running story', () => {
    const long = `W-${'y'.repeat(900)}`;
    const m = runMessage(
      {
        running: false,
        stories: [{ storyId: 'US-001', iteration: 1, maxIterations: 1, startedAt: T0 }],
        waits: [
          { storyId: 'US-004', short: 'waits for US-001', text: 'waits for US-001: both change src/api/tasks.ts' },
          { storyId: 'US-001', short: 'waits for a free slot', text: 'waits for a free slot (2/2 agents running)' },
          { storyId: 'US-004', short: 'skipped', text: 'a second sentence for the same story' },
          { storyId: long, short: 'needs you', text: 'z'.repeat(5_000) },
        ],
      },
      new Map(),
    );
    assertAccepted(m, 'the run message with waits');
    assert.deepEqual(m.waits?.[0], ['US-004', 'waits for US-001', 'waits for US-001: both change src/api/tasks.ts']);
    assert.equal(m.waits?.length, 2, 'the running story US-001 does not wait; US-004 is named once');
    assert.equal(m.waits?.[1][0], pageKey(long));
    assert.ok((m.waits?.[1][2].length ?? 0) <= PAGE_LIMITS.outcome, 'the sentence is clamped to the page limit');
    assert.deepEqual(waitsOf(m).get('US-004'), { short: 'waits for US-001', text: 'waits for US-001: both change src/api/tasks.ts' });
    assert.equal(runMessage({ running: false, stories: [], waits: [] }, new Map()).waits, undefined, 'no waits: no field');
  });

  it('the page refuses a run message over its limits, and validates the mark’s "show terminal" request', () => {
    const over = { type: 'run', running: true, stories: Array.from({ length: PAGE_LIMITS.running + 1 }, (_, i) => ({ storyId: `US-${i}` })), lastOutcome: [] };
    assert.equal(parseHostMessage(over).ok, false);
    const ok = parsePageMessage({ type: 'showTerminal', requestId: 1, id: 'US-001' });
    assert.ok(ok.ok && ok.message.type === 'showTerminal' && ok.message.id === 'US-001');
    assert.equal(parsePageMessage({ type: 'showTerminal', requestId: 2, id: 'x'.repeat(PAGE_LIMITS.id + 1) }).ok, false);
    assert.equal(parsePageMessage({ type: 'showTerminal', requestId: 3, id: 7 }).ok, false);
    assert.ok(parsePageMessage({ type: 'showTerminal', requestId: 4 }).ok, 'the status line’s link names no story: the serial run’s terminal');
  });
});
