/** Run insights (issue 21): the aggregation, the feature of a run, and the streaming reader. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { featureResolver, UNKNOWN_FEATURE } from '../../src/core/insights/features';
import { dashboardStatsMessage } from '../../src/core/insights/charts';
import { summaries } from '../../src/core/insights/format';
import { parseDashboardHostMessage } from '../../src/core/webview/dashboardProtocol';
import { computeStats, MAX_POINTS, parseDateBound } from '../../src/core/insights/stats';
import { parseRuns, parseRunLine, RUN_OUTCOMES, serializeRun } from '../../src/core/runs/runs';
import { readFeatures } from '../../src/node/insights/features';
import { streamRuns } from '../../src/node/insights/runsReader';
import { at, demoRuns, runAt, runRecord, writeDemoWorkspace } from '../support/runsData';

const features = featureResolver([
  { branchName: 'ralph/tasks', storyIds: ['US-001', 'US-002'], archivedOn: '2026-11-18' },
  { branchName: 'ralph/billing', storyIds: ['US-001', 'US-003'] },
]);
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);

describe('run insights: aggregation (issue 21)', () => {
  it('sums cost and tokens per story from the runs that reported them and counts the others as unknown', () => {
    const s = computeStats(demoRuns(), features);
    close(s.cost, 4.5);
    assert.equal(s.unknownCost, 2);
    assert.deepEqual(s.tokens, { input: 11000, output: 3100, cacheRead: 22000, cacheWrite: 400 });
    const us1 = s.stories.find((x) => x.storyId === 'US-001');
    assert.ok(us1);
    assert.equal(us1.attempts, 3);
    close(us1.cost, 2.5);
    assert.equal(us1.unknownCost, 1);
    assert.equal(us1.title, 'Invoice schema');
    assert.deepEqual(
      s.stories.map((x) => [x.storyId, x.attempts]),
      [
        ['US-001', 3],
        ['US-002', 2],
        ['US-003', 1],
      ],
    );
    assert.match(summaries.costPerStory(s), /^Total cost \$4\.50 over 3 stories; most: US-001 at \$2\.50; 2 runs with unknown cost\.$/);
  });

  it('gives the cumulative cost per day and over time', () => {
    const s = computeStats(demoRuns(), features);
    assert.deepEqual(
      s.days.map((d) => [d.day, d.runs, d.cost, d.cumulative]),
      [
        ['2026-11-17', 3, 2.5, 2.5],
        ['2026-11-20', 3, 2, 4.5],
      ],
    );
    assert.deepEqual(
      s.costOverTime.map((p) => p.cumulative),
      [0.5, 1.75, 2.5, 2.5, 4.5, 4.5],
    );
    assert.equal(
      s.durations.map((d) => d.durationMs / 60_000).join(','),
      '10,20,15,5,12,8',
    );
  });

  it('leaves rate-limited runs out of the success rate (they are shown as limit waits), overall and per loop', () => {
    // loop-b: a rate-limited run, a pass and a failure: 1 of the 2 runs that ran their course passed
    const s = computeStats(demoRuns(), features);
    assert.deepEqual(
      s.loops.map((l) => [l.loopId, l.runs, l.passed, Math.round(l.successRate * 100)]),
      [
        ['loop-a', 3, 2, 67],
        ['loop-b', 3, 1, 50],
      ],
    );
    close(s.successRate, 3 / 5);
    assert.equal(summaries.successPerLoop(s), '2 loops; 60% of 5 iterations passed (1 rate-limited run not counted).');
    // only limited runs: no rate at all, not 0 %
    const limitedOnly = computeStats([runAt(0, 5, { outcome: 'rate-limited', storyPasses: false })], features);
    assert.equal(limitedOnly.successRate, 0);
    assert.equal(summaries.successPerLoop(limitedOnly), '1 loop; no iteration ran its course (1 rate-limited run not counted).');
  });

  it('counts the wait on a limit until the printed reset, or the next run of the story when it came first', () => {
    // Reset at 35, next run at 60: waited 30 minutes (5 → 35).
    assert.equal(computeStats(demoRuns(), features).limitWaitMs, 30 * 60_000);
    const limited = (over = {}) => runAt(0, 5, { outcome: 'rate-limited', storyPasses: false, ...over });
    // Resumed early (Resume Now at 20), before the reset at 35: 15 minutes.
    assert.equal(computeStats([limited({ resetAt: at(35) }), runAt(20, 5)], features).limitWaitMs, 15 * 60_000);
    // No reset printed: until the next run of that story, not another story's run.
    const s = computeStats([limited(), runAt(8, 1, { storyId: 'US-003' }), runAt(45, 5)], features);
    assert.equal(s.limitWaitMs, 40 * 60_000);
    assert.equal(s.stories.find((x) => x.storyId === 'US-001')?.limitWaitMs, 40 * 60_000);
    // The last run, reset printed: until the reset. No reset and no later run: unknown.
    assert.equal(computeStats([limited({ resetAt: at(65) })], features).limitWaitMs, 60 * 60_000);
    const unknown = computeStats([limited()], features);
    assert.deepEqual([unknown.rateLimited, unknown.limitWaitMs, unknown.limitWaitsUnknown], [1, 0, 1]);
    assert.equal(summaries.limitWaits(unknown), '1 rate-limited run, 0ms waiting on limits (1 wait of unknown length).');
  });

  it('filters by feature (the branch or its name without ralph/) and by start date, and still lists every feature', () => {
    const tasks = computeStats(demoRuns(), features, { feature: 'tasks' });
    assert.equal(tasks.runs, 3);
    close(tasks.cost, 2.5);
    assert.equal(tasks.filteredOut, 3);
    assert.deepEqual(tasks.features, [
      { name: 'ralph/tasks', runs: 3 },
      { name: 'ralph/billing', runs: 3 },
    ]);
    const billing = computeStats(demoRuns(), features, { feature: 'ralph/billing' });
    assert.deepEqual(
      billing.stories.map((x) => x.storyId),
      ['US-001', 'US-003'],
    );
    const since = parseDateBound('2026-11-18', 'since');
    const until = parseDateBound('2026-11-17', 'until');
    assert.equal(computeStats(demoRuns(), features, { since: since as number }).runs, 3);
    assert.equal(computeStats(demoRuns(), features, { until: until as number }).runs, 3);
    assert.match(String(parseDateBound('yesterday', 'since')), /--since needs a date such as 2026-01-31/);
    assert.match(String(parseDateBound('2026-02-30', 'until')), /--until needs a date/);
  });

  it('keeps at most MAX_POINTS points per series, each standing for its share of the runs, the longest duration kept', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: 1, maxLength: 5000 }), (durations) => {
        const runs = durations.map((d, i) => runRecord({ durationMs: d, iteration: i + 1, cost: 0.01 }));
        const s = computeStats(runs, features);
        assert.ok(s.durations.length <= MAX_POINTS && s.costOverTime.length <= MAX_POINTS);
        assert.equal(
          s.durations.reduce((n, p) => n + p.of, 0),
          durations.length,
        );
        assert.equal(Math.max(...s.durations.map((p) => p.durationMs)), Math.max(...durations));
        close(s.costOverTime[s.costOverTime.length - 1].cumulative, s.cost);
      }),
      { numRuns: 30 },
    );
  });
});

describe('run insights: the dashboard message', () => {
  it('a branchName too long for the protocol leaves only its choice out: the page never refuses the figures', () => {
    const long = `ralph/${'x'.repeat(3000)}`;
    const runs = [runRecord({ storyId: 'US-001' }), runRecord({ storyId: 'US-002' })];
    const stats = computeStats(runs, (r) => (r.storyId === 'US-001' ? long : 'ralph/tasks'));
    const message = dashboardStatsMessage('f'.repeat(3000), {}, stats, 0);
    const parsed = parseDashboardHostMessage(message);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.deepEqual(message.type === 'stats' && message.features.map((f) => f.name), ['ralph/tasks']);
    assert.match(message.type === 'stats' ? message.headline : '', /^2 runs/);
  });
});

describe('run insights: the feature of a run', () => {
  it('reads a reused story id as the feature it ran under, by the archive date; a parallel run by its branch', () => {
    assert.equal(features(runRecord({ storyId: 'US-001', start: '2026-11-18T23:00:00Z' })), 'ralph/tasks');
    assert.equal(features(runRecord({ storyId: 'US-001', start: '2026-11-19T08:00:00Z' })), 'ralph/billing');
    assert.equal(features(runRecord({ storyId: 'US-002', start: '2026-11-25T08:00:00Z' })), 'ralph/tasks');
    assert.equal(features(runRecord({ storyId: 'US-404' })), UNKNOWN_FEATURE);
    assert.equal(features(runRecord({ storyId: 'US-404', parallel: { wave: 0, worktree: '/w', branch: 'ralph/tasks-US-404' } })), 'ralph/tasks');
  });

  it('finds the features of a workspace folder: prd.json and the archived prd.json files', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'ralph-insights-'));
    try {
      writeDemoWorkspace(root);
      writeFileSync(path.join(root, 'archive', 'notes.txt'), 'not a feature');
      const found = await readFeatures(root, path.join(root, 'prd.json'));
      assert.deepEqual(
        found.map((f) => [f.branchName, f.archivedOn, f.storyIds.join(' ')]),
        [
          ['ralph/billing', undefined, 'US-001 US-003'],
          ['ralph/tasks', '2026-11-18', 'US-001 US-002'],
        ],
      );
      assert.deepEqual(await readFeatures(path.join(root, 'nowhere'), path.join(root, 'nowhere', 'prd.json')), []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('runs.jsonl: the receipt and limit fields of the issue 21 contract', () => {
  it('writes cost, tokens and resetAt only when known, after loopId, and reads them back', () => {
    const r = runRecord({ cost: 0.1234, tokens: { input: 1200, output: 340, cacheRead: 0, cacheWrite: 0 }, outcome: 'rate-limited', resetAt: '2026-11-20T11:00:00.000Z' });
    const line = serializeRun(r);
    assert.match(line, /"loopId":"loop-1","cost":0\.1234,"tokens":\{"input":1200,"output":340,"cacheRead":0,"cacheWrite":0\},"resetAt":"2026-11-20T11:00:00\.000Z"\}/);
    assert.deepEqual(parseRuns(line).runs, [r]);
    assert.ok(RUN_OUTCOMES.includes('rate-limited'));
    assert.doesNotMatch(serializeRun(runRecord()), /cost|tokens|resetAt/);
  });

  it('leaves out a malformed cost, tokens or reset time rather than guessing', () => {
    const base = JSON.parse(serializeRun(runRecord())) as Record<string, unknown>;
    for (const bad of [{ cost: '0.5' }, { cost: -1 }, { tokens: { input: 'many', output: 3 } }, { tokens: [1, 2] }, { resetAt: 'soon' }]) {
      const r = parseRunLine(JSON.stringify({ ...base, ...bad }));
      assert.ok(r && typeof r !== 'string');
      assert.deepEqual([r.cost, r.tokens, r.resetAt], [undefined, undefined, undefined], JSON.stringify(bad));
    }
  });
});

describe('run insights: the streaming reader', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-reader-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads what parseRuns reads and reports torn lines with their line numbers', async () => {
    const good = demoRuns().map(serializeRun);
    const text = [good[0], good[1].slice(0, 40) + '\n', '\n', '[1,2]\n', good[2], '{"storyId":"X","start":"2026-11-20T10:00:00Z","outcome":"exploded"}\r\n', good[3], good[4].slice(0, -30)].join('');
    const file = path.join(dir, 'runs.jsonl');
    writeFileSync(file, text);
    const seen: string[] = [];
    const read = await streamRuns(file, (r) => seen.push(r.storyTitle));
    const parsed = parseRuns(text);
    assert.deepEqual(seen, parsed.runs.map((r) => r.storyTitle));
    assert.deepEqual(read.errors, parsed.errors);
    assert.deepEqual(
      read.errors.map((e) => e.line),
      [2, 4, 6, 8],
    );
    assert.match(read.errors[0].message, /^not valid JSON/);
    assert.equal(read.errors[1].message, 'not a JSON object');
    assert.equal(read.errors[2].message, 'unknown "outcome" "exploded"');
    assert.equal(read.runs, 3);
  });

  it('reads lines and multi-byte characters that span the 1 MiB chunks whole', async () => {
    // Titles of 1 to 700 characters with é and an emoji, so that chunk edges fall everywhere in lines and characters.
    const records = Array.from({ length: 4000 }, (_, i) => runRecord({ iteration: i + 1, storyTitle: `é🚀${'x'.repeat((i * 37) % 700)}é` }));
    const text = records.map(serializeRun).join('').replace(/\n$/, '');
    assert.ok(Buffer.byteLength(text) > 2.5 * 1024 * 1024);
    const file = path.join(dir, 'runs.jsonl');
    writeFileSync(file, text);
    const seen: string[] = [];
    const read = await streamRuns(file, (r) => seen.push(r.storyTitle));
    assert.deepEqual(read.errors, []);
    assert.deepEqual(seen, records.map((r) => r.storyTitle));
  });

  it('says the file is missing by rejecting with ENOENT', async () => {
    await assert.rejects(
      streamRuns(path.join(dir, 'none.jsonl'), () => undefined),
      (e: NodeJS.ErrnoException) => e.code === 'ENOENT',
    );
  });
});
