/** `ralph-workbench stats` in-process (issue 21): the figures as text, JSON and CSV, filters, and bad input. */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serializeRun } from '../../src/core/runs/runs';
import { cliAsync } from './helpers';
import { runAt, writeDemoWorkspace } from '../support/runsData';

describe('CLI stats (issue 21)', () => {
  let root: string;
  let runs: string;
  const stats = (...args: string[]) => cliAsync(['stats', '--runs', runs, ...args], 'disk');
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'ralph-stats-'));
    runs = path.join(root, '.ralph', 'runs.jsonl');
    writeDemoWorkspace(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('prints the totals, per story, per loop and per day', async () => {
    const r = await stats();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const lines = r.stdout.split('\n');
    assert.equal(lines[0], '6 runs, 60% passed (1 rate-limited run not counted), 1h 10m in all (2026-11-17 to 2026-11-20)');
    assert.equal(lines[1], 'Total cost $4.50 over 3 stories; most: US-001 at $2.50; 2 runs with unknown cost.');
    assert.equal(lines[3], '1 rate-limited run, 30m 00s waiting on limits.');
    assert.match(r.stdout, /^ {2}US-002 +2 +1 +\$2\.00 +0 +5\.00k +1\.40k +35m 00s +0ms {2}Task API$/m);
    assert.match(r.stdout, /^ {2}loop-b +3 +50% +\$2\.00 {2}2026-11-20T10:00:00\.000Z$/m);
    assert.match(r.stdout, /^ {2}2026-11-17 +3 +\$2\.50 +\$2\.50$/m);
    assert.match(r.stdout, /^ {2}2026-11-20 +3 +\$2\.00 +\$4\.50$/m);
  });

  it('--json gives every figure; --feature and --since filter them', async () => {
    const all = JSON.parse((await stats('--json')).stdout) as { runs: number; cost: number; limitWaitMs: number; features: unknown; skipped: unknown[] };
    assert.deepEqual([all.runs, all.cost, all.limitWaitMs, all.skipped], [6, 4.5, 30 * 60_000, []]);
    assert.deepEqual(all.features, [
      { name: 'ralph/tasks', runs: 3 },
      { name: 'ralph/billing', runs: 3 },
    ]);
    const tasks = JSON.parse((await stats('--json', '--feature', 'tasks')).stdout) as { runs: number; cost: number; stories: { storyId: string }[] };
    assert.deepEqual([tasks.runs, tasks.cost, tasks.stories.map((s) => s.storyId)], [3, 2.5, ['US-001', 'US-002']]);
    const since = JSON.parse((await stats('--json', '--since', '2026-11-20T10:30:00Z')).stdout) as { runs: number };
    assert.equal(since.runs, 2);
  });

  it('--csv prints one table with a section column, and text from runs.jsonl cannot become a spreadsheet formula', async () => {
    appendFileSync(runs, serializeRun(runAt(90, 1, { storyId: 'US-009', storyTitle: '=HYPERLINK("http://x","click"), now', cost: 0.1 })));
    const r = await stats('--csv');
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout.trim().split('\n');
    assert.equal(rows[0], 'section,key,label,runs,passed,cost,unknownCost,inputTokens,outputTokens,cacheRead,cacheWrite,durationMs,limitWaitMs');
    assert.equal(rows[1], 'total,,,7,4,4.6,2,11000,3100,22000,400,4260000,1800000');
    assert.ok(rows.includes('story,US-002,Task API,2,1,2,0,5000,1400,10000,200,2100000,0'), r.stdout);
    assert.ok(rows.includes(`story,US-009,"'=HYPERLINK(""http://x"",""click""), now",1,1,0.1,0,0,0,0,0,60000,0`), r.stdout);
    assert.ok(rows.includes('loop,loop-a,2026-11-17T10:00:00.000Z,3,2,2.5,0,,,,,,'), r.stdout);
  });

  it('skips torn lines and names them on stderr with their line numbers', async () => {
    appendFileSync(runs, '{"storyId": "US-001", "start": "2026-11-2\n');
    const r = await stats('--json');
    assert.equal(r.code, 0);
    assert.match(r.stderr, /runs\.jsonl:7: skipped: not valid JSON/);
    assert.equal((JSON.parse(r.stdout) as { runs: number }).runs, 6);
  });

  it('says what is wrong with bad input, exit 1', async () => {
    const missing = await cliAsync(['stats', '--runs', path.join(root, 'nope', '.ralph', 'runs.jsonl')], 'disk');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /runs\.jsonl does not exist: no iteration has been recorded here yet/);
    const date = await stats('--since', 'last week');
    assert.equal(date.code, 1);
    assert.match(date.stderr, /^ralph-workbench stats: --since needs a date such as 2026-01-31 or 2026-01-31T09:00:00Z, not "last week"/);
    const feature = await stats('--feature', 'ralph/nothing');
    assert.equal(feature.code, 1);
    assert.equal(feature.stderr, 'ralph-workbench stats: no run belongs to feature "ralph/nothing"; the runs belong to: ralph/tasks (3 runs), ralph/billing (3 runs).\n');
    const both = await stats('--json', '--csv');
    assert.match(both.stderr, /choose one of --json and --csv/);
    const unknown = await stats('--cost');
    assert.match(unknown.stderr, /^ralph-workbench stats: Unknown option '--cost'/);
  });

  it('--help prints its usage and the overall usage lists stats', async () => {
    const help = await cliAsync(['stats', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: ralph-workbench stats \[--json \| --csv\] \[--feature BRANCH\] \[--since DATE\]/);
    const all = await cliAsync(['--help']);
    assert.match(all.stdout, /^ {2}stats {6}Print the run insights/m);
  });
});
