/** runs.jsonl records, their summary, feat-commit detection, and archive naming. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { completeIteration } from '../../src/core/loop/iteration';
import { LoopController } from '../../src/core/loop/loop';
import { analyzePrd } from '../../src/core/prd/index';
import { archiveFolderName, featureName, freshProgressText, parseLastBranch, shouldArchive } from '../../src/core/runs/archive';
import {
  detectFeatCommit,
  featCommitSubject,
  formatDuration,
  MAX_ERROR_LINE_CHARS,
  MAX_ERROR_LINES,
  MAX_UNCOMMITTED,
  parseRuns,
  RUN_OUTCOMES,
  type RunRecord,
  serializeRun,
  summarizeRuns,
  summaryLine,
} from '../../src/core/runs/runs';
import { makePrd } from './helpers';

const record = (over: Partial<RunRecord> = {}): RunRecord => ({
  start: '2026-11-20T10:00:00.000Z',
  end: '2026-11-20T10:04:05.000Z',
  storyId: 'US-006',
  storyTitle: 'Sort tasks by priority',
  agent: 'claude',
  exitCode: 0,
  durationMs: 245000,
  passingBefore: 4,
  passingAfter: 5,
  storyPasses: true,
  commit: { sha: '3f9c1e2a7b44', subject: 'feat: US-006 - Sort tasks by priority' },
  complete: false,
  outcome: 'passed',
  promptFile: '.ralph/prompts/20261120-100000-US-006.md',
  iteration: 1,
  loopId: 'loop-1',
  ...over,
});

describe('runs.jsonl', () => {
  it('serialises one record per line and parses it back', () => {
    const lines = [record(), record({ iteration: 2, storyId: 'US-005', exitCode: null, commit: null, outcome: 'stopped', storyPasses: false })];
    const text = lines.map(serializeRun).join('');
    assert.equal(text.split('\n').length, 3);
    assert.ok(text.endsWith('\n'));
    assert.deepEqual(parseRuns(text), { runs: lines, errors: [] });
    // Fixed field order, whatever order the object had.
    assert.match(serializeRun(record()), /^\{"start":"[^"]+","end":"[^"]+","storyId":"US-006","storyTitle":/);
  });

  it('records where a parallel run ran and what became of its merge, and reads it back (unknown values dropped)', () => {
    const parallel = record({ parallel: { wave: 2, worktree: '/tmp/.repo-ralph-worktrees/US-006', branch: 'ralph/demo-US-006', merge: 'merged', mergeCommit: 'a'.repeat(40) } });
    assert.match(serializeRun(parallel), /"loopId":"loop-1","parallel":\{"wave":2,"worktree":"[^"]+","branch":"ralph\/demo-US-006","merge":"merged","mergeCommit":"a{40}"\}\}\n$/);
    assert.deepEqual(parseRuns(serializeRun(parallel)).runs, [parallel]);
    const odd = serializeRun(record()).replace(/\}\n$/, ',"parallel":{"wave":-1,"worktree":"/w","branch":"b","merge":"exploded","mergeCommit":"; rm -rf"}}\n');
    assert.deepEqual(parseRuns(odd).runs[0].parallel, { wave: 0, worktree: '/w', branch: 'b' });
    assert.equal(parseRuns(serializeRun(record()).replace(/\}\n$/, ',"parallel":"yes"}\n')).runs[0].parallel, undefined);
  });

  it('records a rate-limited run with its reset time and a failed run with its signature, after loopId, and reads them back tolerantly', () => {
    const limited = record({ outcome: 'rate-limited', exitCode: 1, storyPasses: false, commit: null, resetAt: '2026-11-20T15:00:00.000Z', uncommitted: ['a.ts'] });
    assert.match(serializeRun(limited), /"outcome":"rate-limited",.*"loopId":"loop-1","resetAt":"2026-11-20T15:00:00\.000Z","uncommitted":\["a\.ts"\]\}\n$/);
    assert.deepEqual(parseRuns(serializeRun(limited)).runs, [limited]);
    const failed = record({ outcome: 'failed', exitCode: 2, signature: "error TS2322: Type '…' is not assignable to type '…'." });
    assert.match(serializeRun(failed), /"loopId":"loop-1","signature":"error TS2322: [^"]+"\}\n$/);
    assert.deepEqual(parseRuns(serializeRun(failed)).runs, [failed]);
    assert.ok(!/resetAt|signature/.test(serializeRun(record())), 'written only when known');
    const odd = serializeRun(record()).replace(/\}\n$/, ',"resetAt":"soon","signature":42}\n');
    assert.deepEqual(parseRuns(odd).runs, [record()]);
    assert.equal(parseRuns(serializeRun(record()).replace(/\}\n$/, `,"signature":"${'x'.repeat(5000)}"}\n`)).runs[0].signature?.length, 500);
  });

  it('a failed run keeps its last error lines as printed, after its signature, bounded, and reads them back tolerantly (issue 21: the signature issue quotes them)', () => {
    const failed = record({ outcome: 'failed', exitCode: 2, signature: 'error TS2322: x', errorLines: ["src/a.ts(4,2): error TS2322: Type 'string' is not assignable", 'Found 1 error'] });
    assert.match(serializeRun(failed), /"signature":"error TS2322: x","errorLines":\["src\/a\.ts\(4,2\): error TS2322: [^"]+","Found 1 error"\]\}\n$/);
    assert.deepEqual(parseRuns(serializeRun(failed)).runs, [failed]);
    assert.ok(!/errorLines/.test(serializeRun(record({ errorLines: [] }))), 'written only when known');
    const odd = (v: string): RunRecord => parseRuns(serializeRun(record()).replace(/\}\n$/, `,"errorLines":${v}}\n`)).runs[0];
    assert.equal(odd('"one line"').errorLines, undefined);
    assert.deepEqual(odd('[1, "kept", null, {"a": 2}]').errorLines, ['kept']);
    const long = odd(JSON.stringify(Array.from({ length: 50 }, (_, i) => `${i} ${'x'.repeat(2000)}`))).errorLines ?? [];
    assert.equal(long.length, MAX_ERROR_LINES);
    assert.ok(long.every((l) => l.length <= MAX_ERROR_LINE_CHARS), 'each line cut');
    assert.match(long.at(-1) ?? '', /^49 /, 'the last lines are the ones kept');
  });

  it('records the receipt (cost, tokens, model, turns) after loopId, in order, and reads it back tolerantly', () => {
    const paid = record({ cost: 0.0332, tokens: { input: 4, output: 107, cacheRead: 38897, cacheWrite: 1774 }, model: 'claude-opus-4-6', turns: 2, receipt: 'parsed', uncommitted: ['a.ts'] });
    assert.match(
      serializeRun(paid),
      /"loopId":"loop-1","cost":0\.0332,"tokens":\{"input":4,"output":107,"cacheRead":38897,"cacheWrite":1774\},"model":"claude-opus-4-6","turns":2,"receipt":"parsed","uncommitted":\["a\.ts"\]\}\n$/,
    );
    assert.deepEqual(parseRuns(serializeRun(paid)).runs, [paid]);
    const none = record({ receipt: 'none' });
    assert.match(serializeRun(none), /"loopId":"loop-1","receipt":"none"\}\n$/, 'nothing unknown is written');
    assert.deepEqual(parseRuns(serializeRun(none)).runs, [none]);
    // A hand-edited line: wrong kinds are dropped, never turned into numbers.
    const odd = serializeRun(record()).replace(/\}\n$/, ',"cost":"5","tokens":{"input":1,"output":-2,"cacheRead":0,"cacheWrite":0},"model":7,"turns":1.5,"receipt":"maybe"}\n');
    const back = parseRuns(odd).runs[0];
    assert.deepEqual([back.cost, back.tokens, back.model, back.turns, back.receipt], [undefined, undefined, undefined, undefined, undefined]);
    assert.equal(parseRuns(serializeRun(record()).replace(/\}\n$/, ',"cost":-1}\n')).runs[0].cost, undefined);
  });

  it('records what the agent left uncommitted, bounded, and reads it back', () => {
    const withLeft = record({ uncommitted: ['README.md', 'src/a b.ts'] });
    assert.match(serializeRun(withLeft), /"loopId":"loop-1","uncommitted":\["README\.md","src\/a b\.ts"\]\}\n$/);
    assert.deepEqual(parseRuns(serializeRun(withLeft)).runs, [withLeft]);
    assert.ok(!serializeRun(record({ uncommitted: [] })).includes('uncommitted'), 'no field when nothing was left');
    const many = Array.from({ length: MAX_UNCOMMITTED + 7 }, (_, i) => `f${i}`);
    const line = completeIteration(new LoopController(), {
      storyId: 'US-1',
      storyTitle: 'One',
      agent: 'custom',
      started: 0,
      ended: 10,
      exitCode: 0,
      stopped: false,
      completeSignal: false,
      before: analyzePrd(makePrd([{ id: 'US-1' }])),
      after: analyzePrd(makePrd([{ id: 'US-1', passes: true }])),
      commits: [],
      uncommitted: many,
      promptFile: 'p.md',
      iteration: 1,
      loopId: 'l',
    }).line;
    assert.equal(line.uncommitted?.length, MAX_UNCOMMITTED);
    assert.equal(line.uncommittedMore, 7);
    const back = parseRuns(`${JSON.stringify({ ...record(), uncommitted: [...many, 3, null] })}\n`).runs[0];
    assert.equal(back.uncommitted?.length, MAX_UNCOMMITTED);
    assert.equal(back.uncommittedMore, 7);
  });

  it('keeps titles with newlines, quotes and U+2028 on one line (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary', minLength: 1 }), (title, id) => {
        const r = record({ storyTitle: title, storyId: id });
        const line = serializeRun(r);
        assert.equal(line.indexOf('\n'), line.length - 1);
        assert.deepEqual(parseRuns(line).runs, [r]);
      }),
      { numRuns: 200 },
    );
  });

  it('skips bad lines and reports them with line numbers', () => {
    const text = [
      serializeRun(record()).trimEnd(),
      '{"start": "2026-11-20T10:00:00Z", "storyId": "US-1", "outcome": "passed"', // torn write
      '',
      '[1,2]',
      JSON.stringify({ ...record(), outcome: 'exploded' }),
      JSON.stringify({ ...record(), storyId: '' }),
      JSON.stringify({ ...record(), start: 'yesterday' }),
      serializeRun(record({ iteration: 7 })).trimEnd(),
    ].join('\r\n');
    const parsed = parseRuns(text);
    assert.deepEqual(
      parsed.runs.map((r) => r.iteration),
      [1, 7],
    );
    assert.deepEqual(
      parsed.errors.map((e) => e.line),
      [2, 4, 5, 6, 7],
    );
    assert.match(parsed.errors[0].message, /^not valid JSON/);
    assert.equal(parsed.errors[1].message, 'not a JSON object');
    assert.equal(parsed.errors[2].message, 'unknown "outcome" "exploded"');
    assert.equal(parsed.errors[3].message, 'missing "storyId"');
    assert.equal(parsed.errors[4].message, 'missing or invalid "start" time');
  });

  it('fills defaults for fields an older writer left out', () => {
    const { runs, errors } = parseRuns('{"start":"2026-11-20T10:00:00Z","end":"2026-11-20T10:00:30Z","storyId":"US-1","outcome":"failed","exitCode":"2"}\n');
    assert.deepEqual(errors, []);
    assert.equal(runs[0].durationMs, 30000);
    assert.equal(runs[0].exitCode, null);
    assert.equal(runs[0].commit, null);
    assert.equal(runs[0].iteration, 1);
    assert.equal(runs[0].storyPasses, false);
  });

  it('summarises iterations, completed stories, success rate and average duration', () => {
    assert.deepEqual(summarizeRuns([]), { iterations: 0, storiesCompleted: 0, successRate: 0, rateLimited: 0, averageDurationMs: 0 });
    assert.equal(summaryLine(summarizeRuns([])), 'No iterations yet');
    const runs = [
      record({ storyId: 'US-004', outcome: 'failed', storyPasses: false, durationMs: 60000 }),
      record({ storyId: 'US-004', durationMs: 120000 }),
      record({ storyId: 'US-005', durationMs: 180000 }),
      record({ storyId: 'US-005', durationMs: 240000 }), // a story can be redone; counted once
      record({ storyId: 'US-006', outcome: 'false-complete', durationMs: 1000 }),
      record({ storyId: 'US-007', outcome: 'no-progress', storyPasses: false, durationMs: 2000 }),
    ];
    const s = summarizeRuns(runs);
    assert.deepEqual(s, { iterations: 6, storiesCompleted: 2, successRate: 0.5, rateLimited: 0, averageDurationMs: 100500 });
    assert.equal(summaryLine(s), '6 iterations · 2 stories completed · 50% success · avg 1m 41s');
    assert.equal(summaryLine(summarizeRuns([record()])), '1 iteration · 1 story completed · 100% success · avg 4m 05s');
    assert.deepEqual(RUN_OUTCOMES, ['passed', 'failed', 'no-progress', 'stopped', 'false-complete', 'error', 'rate-limited']);
  });

  it("the Runs view's success rate leaves rate-limited runs out, as the dashboard's does", () => {
    const runs = [record({ outcome: 'rate-limited', storyPasses: false }), record({ outcome: 'rate-limited', storyPasses: false }), record(), record({ outcome: 'failed', storyPasses: false })];
    assert.equal(summarizeRuns(runs).successRate, 0.5);
    assert.equal(summarizeRuns([record({ outcome: 'rate-limited', storyPasses: false })]).successRate, 0);
  });

  it('formats durations', () => {
    assert.deepEqual(
      [0, 850, 42000, 245000, 3720000, -1].map(formatDuration),
      ['0ms', '850ms', '42s', '4m 05s', '1h 02m', '?'],
    );
  });
});

describe('feat commits', () => {
  it('finds `feat: <id> - <title>` and `feat: [<id>] - …` subjects', () => {
    const commits = [
      { sha: 'c3', subject: 'chore: tidy' },
      { sha: 'c2', subject: 'feat: US-10 - Something else' },
      { sha: 'c1', subject: 'feat: [US-1] - Add login' },
    ];
    assert.deepEqual(detectFeatCommit(commits, 'US-1'), { sha: 'c1', subject: 'feat: [US-1] - Add login' });
    assert.deepEqual(detectFeatCommit(commits, 'US-10'), { sha: 'c2', subject: 'feat: US-10 - Something else' });
    assert.equal(detectFeatCommit(commits, 'US-2'), null);
    const ok = ['feat: US-006 - Sort tasks', 'feat(web): US-006 – Sort', 'Feat: US-006: Sort', 'feat: US-006', 'feat:US-006 - x', 'feat: [US-006]: x'];
    for (const s of ok) {
      assert.ok(detectFeatCommit([s], 'US-006'), s);
    }
    const no = ['fix: US-006 - x', 'feat: US-0061 - x', 'feat: US-006-b - x', 'feat: US-006.1 - x', 'feat: see US-006', 'US-006 - feat'];
    for (const s of no) {
      assert.equal(detectFeatCommit([s], 'US-006'), null, s);
    }
    assert.ok(detectFeatCommit(['feat: a.b+c(d) - weird id'], 'a.b+c(d)'));
    assert.equal(detectFeatCommit(['feat: axb - x'], 'a.b'), null);
    assert.equal(detectFeatCommit(['feat:  - x'], ''), null);
  });

  it('builds the subject an iteration should use', () => {
    assert.equal(featCommitSubject('US-006', 'Sort tasks\nby priority'), 'feat: US-006 - Sort tasks by priority');
  });
});

describe('archive', () => {
  it('archives only when a known previous branch differs from the current one', () => {
    assert.equal(shouldArchive(undefined, 'ralph/a'), false);
    assert.equal(shouldArchive('', 'ralph/a'), false);
    assert.equal(shouldArchive('ralph/a', 'ralph/a'), false);
    assert.equal(shouldArchive('ralph/a\n', ' ralph/a'), false);
    assert.equal(shouldArchive('ralph/a', undefined), false);
    assert.equal(shouldArchive('ralph/a', 'ralph/b'), true);
    assert.equal(parseLastBranch('\n ralph/task-priority \n'), 'ralph/task-priority');
    assert.equal(parseLastBranch(''), undefined);
    assert.equal(parseLastBranch(undefined), undefined);
  });

  it('names the folder archive/YYYY-MM-DD-<feature>', () => {
    const d = new Date(2026, 10, 5, 23, 59);
    assert.equal(archiveFolderName(d, 'ralph/user-auth'), 'archive/2026-11-05-user-auth');
    assert.equal(archiveFolderName(d, 'feature/x y'), 'archive/2026-11-05-feature-x-y');
    assert.equal(archiveFolderName(d, 'ralph/../../etc'), 'archive/2026-11-05-etc');
    assert.equal(archiveFolderName(d, 'ralph/'), 'archive/2026-11-05-feature');
    const taken = new Set(['archive/2026-11-05-user-auth', 'archive/2026-11-05-user-auth-2']);
    assert.equal(archiveFolderName(d, 'ralph/user-auth', (f) => taken.has(f)), 'archive/2026-11-05-user-auth-3');
    assert.equal(featureName('ralph/' + 'x'.repeat(200)).length, 80);
  });

  it('gives a safe single folder name for any branch (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (b) => {
        const f = featureName(b);
        assert.match(f, /^[A-Za-z0-9_][A-Za-z0-9._-]*$/);
        assert.ok(f !== '.' && f !== '..');
        assert.ok(f.length <= 80);
      }),
    );
  });

  it('starts a fresh progress.txt with the standard header', () => {
    assert.equal(freshProgressText(new Date(2026, 0, 2, 3, 4, 5)), '# Ralph Progress Log\nStarted: 2026-01-02 03:04:05\n---\n');
  });
});

/** A run record with only its outcome chosen (the Runs view's summary line). */
const runOf = (outcome: RunRecord['outcome']): RunRecord =>
  ({ start: '2026-01-01T00:00:00Z', end: '2026-01-01T00:01:00Z', storyId: 'US-1', storyTitle: '', agent: 'claude', exitCode: 1, durationMs: 60_000, passingBefore: 0, passingAfter: 0, storyPasses: outcome === 'passed', commit: null, complete: false, outcome, promptFile: '', iteration: 1, loopId: '' }) as RunRecord;

describe('the Runs view summary line and rate-limited runs (found by a hostile review)', () => {
  it('says that rate-limited iterations are left out of the success share (as stats and the dashboard do)', () => {
    const line = summaryLine(summarizeRuns([runOf('passed'), runOf('rate-limited'), runOf('rate-limited')]));
    assert.equal(line, '3 iterations · 1 story completed · 100% success (2 rate-limited runs not counted) · avg 1m 00s');
  });
  it('does not call iterations that were all rate-limited "0% success"', () => {
    const line = summaryLine(summarizeRuns([runOf('rate-limited'), runOf('rate-limited')]));
    assert.equal(line, '2 iterations · 0 stories completed · none ran its course (2 rate-limited runs not counted) · avg 1m 00s');
  });
});
