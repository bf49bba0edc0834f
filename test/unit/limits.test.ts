/** Limit detection (src/core/insights/limits.ts) over the real messages in test/fixtures/agent-output/limits, and the wait it leads to. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { limitNotice } from '../../src/core/insights/waitText';
import { StreamRenderer } from '../../src/core/insights/streamRender';
import { detectLimit, LIMIT_TAIL_CHARS, type LimitKind, limitWait, MAX_BACKOFF_MS, MAX_MARGIN_MS, OutputTail, parseResetTime } from '../../src/core/insights/limits';

const DIR = path.resolve(__dirname, '../fixtures/agent-output/limits');
const END = new Date('2025-08-19T14:08:25Z');
const at = (iso: string): string => new Date(iso).toISOString();
const plus = (ms: number): string => new Date(END.getTime() + ms).toISOString();
const H = 3_600_000;
const M = 60_000;
const D = 24 * H;

/** Every fixture, with what it means when the agent exits non-zero at END (a reset without a zone read in Europe/Berlin). */
const EXPECTED: Record<string, { kind: LimitKind; resetAt?: string }> = {
  'claude-usage-limit-epoch.txt': { kind: 'usage-limit', resetAt: at('2025-08-19T15:00:00Z') },
  // 5pm CEST, the same instant as the epoch of the same issue
  'claude-usage-limit-reset-at-zone.txt': { kind: 'usage-limit', resetAt: at('2025-08-19T15:00:00Z') },
  // 1 PM in Dubai (UTC+4) had passed at 14:08 UTC: the next one
  'claude-usage-limit-reset-at-1-pm.txt': { kind: 'usage-limit', resetAt: at('2025-08-20T09:00:00Z') },
  'claude-session-limit-resets.txt': { kind: 'usage-limit', resetAt: at('2025-08-20T11:20:00Z') },
  // 11pm in Anchorage (UTC-8) the same local day
  'claude-hit-your-limit-resets.txt': { kind: 'usage-limit', resetAt: at('2025-08-20T07:00:00Z') },
  'claude-messages-limit-no-zone.txt': { kind: 'usage-limit', resetAt: at('2025-08-20T07:30:00Z') },
  'claude-529-overloaded-json.txt': { kind: 'overloaded' },
  // "try again in a moment" is no time
  'claude-529-overloaded-text.txt': { kind: 'overloaded' },
  // "Retrying in 4 seconds" is the agent's own retry, not the reset
  'claude-529-retrying.txt': { kind: 'overloaded' },
  'claude-rate-limit-reached.txt': { kind: 'rate-limit' },
  'codex-usage-limit-days.txt': { kind: 'usage-limit', resetAt: plus(4 * D + 6 * H + 37 * M) },
  'codex-usage-limit-wrapped.txt': { kind: 'usage-limit', resetAt: plus(5 * D + 22 * H + 11 * M) },
  // a localised date with no zone: not guessed
  'codex-usage-limit-at-local-date.txt': { kind: 'usage-limit' },
  'codex-exceeded-retry-limit-429.txt': { kind: 'rate-limit' },
  'copilot-rate-limit-hours.txt': { kind: 'rate-limit', resetAt: plus(2 * H) },
  'copilot-rate-limit-hours-minutes.txt': { kind: 'rate-limit', resetAt: plus(15 * H + 23 * M) },
  'copilot-model-call-rate-limited.txt': { kind: 'rate-limit' },
  'copilot-wait-minutes.txt': { kind: 'rate-limit', resetAt: plus(2 * M) },
};

const fixtures = readdirSync(DIR).filter((f) => f.endsWith('.txt'));
const read = (f: string): string => readFileSync(path.join(DIR, f), 'utf8');

describe('limits: the real messages', () => {
  it('every fixture has an expectation and SOURCES.md names its source', () => {
    assert.deepEqual([...fixtures].sort(), Object.keys(EXPECTED).sort());
    const sources = readFileSync(path.join(DIR, 'SOURCES.md'), 'utf8');
    for (const f of fixtures) {
      assert.match(sources, new RegExp(`\\| ${f.replace(/\./g, '\\.')} \\|[^\n]*https://github\\.com/`), f);
    }
  });

  for (const f of fixtures) {
    it(`${f}: recognised after a non-zero exit, with its reset time when it printed a readable one`, () => {
      // as the agent prints it: coloured, after some work, CRLF line ends
      const output = `Working on US-003…\r\n\x1b[31m${read(f).replace(/\n/g, '\r\n')}\x1b[0m`;
      const v = detectLimit({ exitCode: 1, output, end: END, timeZone: 'Europe/Berlin' });
      assert.ok(v, `${f} not recognised`);
      assert.equal(v.kind, EXPECTED[f].kind);
      assert.equal(v.resetAt?.toISOString(), EXPECTED[f].resetAt);
      assert.ok(v.message.length > 0 && v.message.length <= 200 && !v.message.includes('\x1b'));
    });
    it(`${f}: not a limit when the agent exited 0 or was stopped`, () => {
      assert.equal(detectLimit({ exitCode: 0, output: read(f), end: END }), undefined);
      assert.equal(detectLimit({ exitCode: null, stopped: true, output: read(f), end: END }), undefined);
    });
  }

  it('a bare clock time ("reset at 9:30 AM") is read only with a time zone to read it in', () => {
    assert.equal(detectLimit({ exitCode: 1, output: read('claude-messages-limit-no-zone.txt'), end: END })?.resetAt, undefined);
  });
});

describe('limits: negative cases', () => {
  it('a story about rate limits whose agent succeeded is not limited; one that failed for another reason long before the end is not either', () => {
    const story = 'US-004: handle "429 Too Many Requests" and "rate limit exceeded" from the API; show "You\'ve hit your usage limit" in the UI.\n';
    assert.equal(detectLimit({ exitCode: 0, output: story + 'All tests pass.\n', end: END }), undefined);
    const later = `${story}${'npm test output line\n'.repeat(Math.ceil(LIMIT_TAIL_CHARS / 20) + 10)}Error: TS2322 Type 'string' is not assignable to type 'number'.\n`;
    assert.equal(detectLimit({ exitCode: 2, output: later, end: END }), undefined);
  });

  it("a story's own failing tests that log a 429 and \"rate limit exceeded\" are a failure, not the agent's limit; the agent's own message after them still is", () => {
    // what an agent (or ralph.sh) prints when the story's `npm test` fails: the API client's test
    // logs the 429 it was given, then jest's ordinary failure summary and npm's error follow
    const npmTest = [
      '> invoices@1.0.0 test',
      '> jest',
      '',
      ' PASS  src/invoice.test.ts',
      ' FAIL  src/apiClient.test.ts',
      '  ● api client › retries after a 429',
      '',
      '    console.warn',
      '      GET /v1/invoices failed: 429 Too Many Requests: {"error":"rate limit exceeded","retry_after":2}',
      '',
      '    expect(received).toBe(expected) // Object.is equality',
      '',
      '    Expected: 2',
      '    Received: 1',
      '',
      '      41 |     await client.list();',
      '    > 42 |     expect(calls).toBe(2);',
      '         |                   ^',
      '',
      '      at Object.<anonymous> (src/apiClient.test.ts:42:19)',
      '',
      'Test Suites: 1 failed, 1 passed, 2 total',
      'Tests:       1 failed, 11 passed, 12 total',
      'Snapshots:   0 total',
      'Time:        3.104 s',
      'Ran all test suites.',
      'npm ERR! Test failed.  See above for more details.',
      '',
    ].join('\n');
    assert.equal(detectLimit({ exitCode: 1, output: npmTest, end: END }), undefined);
    // the same with Windows line ends and colours
    assert.equal(detectLimit({ exitCode: 1, output: `\x1b[31m${npmTest.replace(/\n/g, '\r\n')}\x1b[0m`, end: END }), undefined);
    // the agent's own limit message after the story's output: the agent's, whatever came before
    for (const f of ['claude-rate-limit-reached.txt', 'codex-exceeded-retry-limit-429.txt', 'copilot-model-call-rate-limited.txt', 'claude-529-retrying.txt']) {
      assert.equal(detectLimit({ exitCode: 1, output: npmTest + read(f), end: END })?.kind, EXPECTED[f].kind, f);
    }
  });

  it('plain failures are not limits', () => {
    for (const out of ['Error: ENOENT: no such file', 'npm ERR! code 1', 'retry limit reached for flaky test', 'waited 429 ms', 'Overloaded method foo(int)']) {
      assert.equal(detectLimit({ exitCode: 1, output: out, end: END }), undefined, out);
    }
  });

  it('no output that exits 0 is ever a limit (property)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (s) => detectLimit({ exitCode: 0, output: s + read('claude-usage-limit-epoch.txt'), end: END }) === undefined));
  });

  it('ambiguous or unreadable reset times give no resetAt', () => {
    for (const t of ['resets 3', 'resets 13pm', 'reset at 5:75pm (Europe/Berlin)', 'resets 5pm (Mars/Olympus_Mons)', 'try again in a moment', 'try again later']) {
      assert.equal(parseResetTime(t, END, 'Europe/Berlin'), undefined, t);
    }
  });

  it('a reset time that is no time, long past, or absurdly far ahead is not believed: no resetAt, never a crash, and the wait is the backoff', () => {
    for (const t of ['Try again in 99999999999999999999 days.', 'Try again in 4000 days.', 'Claude AI usage limit reached|1000000000', 'Claude AI usage limit reached|9999999999']) {
      assert.equal(parseResetTime(t, END), undefined, t);
      const verdict = detectLimit({ exitCode: 1, output: `You've hit your usage limit. ${t}\n`, end: END });
      assert.ok(verdict, t);
      assert.equal(verdict.resetAt, undefined, t);
      assert.deepEqual(limitWait(verdict, END.getTime(), 1), { until: END.getTime() + 60_000, source: 'backoff' });
    }
    // A weekly limit's reset a few days ahead is believed.
    assert.equal(parseResetTime('Try again in 4 days 6 hours.', END)?.getTime(), END.getTime() + (4 * 24 + 6) * 3_600_000);
  });

  it('24-hour clocks and daylight-saving days read right', () => {
    // 15:00 in Berlin (13:00 UTC) had passed at 14:08 UTC: tomorrow's
    assert.equal(parseResetTime('resets at 15:00 (Europe/Berlin)', END)?.toISOString(), at('2025-08-20T13:00:00Z'));
    // the night the clocks go forward in Berlin: 3:30 is CEST (UTC+2)
    assert.equal(parseResetTime('resets 3:30am (Europe/Berlin)', new Date('2025-03-30T00:30:00Z'))?.toISOString(), at('2025-03-30T01:30:00Z'));
    // a message printed a minute after the minute it names still means that minute, not tomorrow
    assert.equal(parseResetTime('resets 4:08pm (Europe/Berlin)', END)?.toISOString(), at('2025-08-19T14:08:00Z'));
  });
});

describe('limits: the wait', () => {
  it('the notification of a wait, serial or parallel, says who hit what and when the story runs again (a parallel run does not know the kind)', () => {
    const w = { agent: 'claude', storyId: 'US-006', until: 0, source: 'reset' as const };
    assert.equal(limitNotice({ ...w, kind: 'usage-limit' }, '15:00:30'), 'claude hit its usage limit; US-006 runs again at 15:00:30, after its reset time.');
    assert.equal(limitNotice({ ...w, kind: 'rate-limit', source: 'backoff' }, '15:00:30'), 'claude hit its rate limit; US-006 runs again at 15:00:30 (no reset time was printed, so backing off).');
    assert.equal(limitNotice({ ...w, kind: 'overloaded', storyId: undefined }, '9:00'), 'claude found its provider overloaded; the story runs again at 9:00, after its reset time.');
    assert.equal(limitNotice(w, '15:00:30'), 'claude hit its limit; US-006 runs again at 15:00:30, after its reset time.');
  });

  it('waits until the printed reset plus a margin of at most 30 s', () => {
    const end = END.getTime();
    assert.deepEqual(limitWait({ resetAt: new Date(end + 2 * H) }, end, 1), { until: end + 2 * H + MAX_MARGIN_MS, source: 'reset' });
    assert.deepEqual(limitWait({ resetAt: new Date(end + 3000) }, end, 1), { until: end + 4000, source: 'reset' });
    // a reset already past: go on after the smallest margin
    assert.deepEqual(limitWait({ resetAt: new Date(end - H) }, end, 1), { until: end + 1000, source: 'reset' });
  });

  it('backs off 1, 2, 4 … 30 minutes when no time was printed', () => {
    const end = END.getTime();
    const waits = [1, 2, 3, 4, 5, 6, 7, 40].map((n) => (limitWait({}, end, n).until - end) / M);
    assert.deepEqual(waits, [1, 2, 4, 8, 16, 30, 30, 30]);
    assert.equal(limitWait({}, end, 1000).until - end, MAX_BACKOFF_MS);
  });

  it('OutputTail keeps only the end of the output', () => {
    const t = new OutputTail();
    t.push('x'.repeat(LIMIT_TAIL_CHARS));
    t.push('Claude AI usage limit reached|1755615600');
    assert.equal(t.value.length, LIMIT_TAIL_CHARS);
    assert.ok(t.value.endsWith('|1755615600'));
  });
});

/** Amp's JSON stream ending in an error result, as ${renderStream} shows it in the terminal. */
function ampErrorThroughRenderStream(error: string): string {
  const r = new StreamRenderer('amp');
  let out = '';
  for (const l of [
    '{"type":"system","subtype":"init","cwd":"/w","session_id":"T-1","tools":[],"mcp_servers":[]}',
    '{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"Working on it."}],"usage":{"input_tokens":10,"output_tokens":2}},"session_id":"T-1"}',
    JSON.stringify({ type: 'result', subtype: 'error_during_execution', duration_ms: 1000, is_error: true, num_turns: 1, error, session_id: 'T-1' }),
  ]) {
    out += r.push(`${l}\n`);
  }
  return out + r.end();
}

describe('limits: found by a hostile review', () => {
  const END = new Date('2026-11-26T14:00:00Z');

  it("a story's failing test that logs the agent-specific form \"API Error: 429\" (a common SDK message) is a failure, not the agent's limit", () => {
    const npmTest = [
      '> invoices@1.0.0 test',
      '> jest',
      ' FAIL  src/apiClient.test.ts',
      '  ● api client › surfaces a 429 to the caller',
      '    console.error',
      '      API Error: 429 Too Many Requests (retry after 2s)',
      '    expect(received).toBe(expected) // Object.is equality',
      '    Expected: 2',
      '    Received: 1',
      'Test Suites: 1 failed, 1 passed, 2 total',
      'Tests:       1 failed, 11 passed, 12 total',
      'Time:        3.104 s',
      'npm ERR! Test failed.  See above for more details.',
      '',
    ].join('\n');
    assert.equal(detectLimit({ exitCode: 1, output: npmTest, end: END })?.kind, undefined);
  });

  it('a Copilot-shaped error JSON in a story\'s test fixture output ("code":"rate_limited") is a failure', () => {
    const out = ['FAIL test/errors.test.ts', '  expected {"message":"rate limit exceeded","code":"rate_limited"} to equal {"code":"ok"}', 'Tests: 1 failed', 'npm ERR! Test failed.', 'exit 1', ''].join('\n');
    assert.equal(detectLimit({ exitCode: 1, output: out, end: END })?.kind, undefined);
  });

  it("Amp's 429 error result through ${renderStream} is a limit when its text spans a few lines", () => {
    const out = ampErrorThroughRenderStream('Error: 429 Too Many Requests\n{\n  "message": "slow down"\n}');
    assert.equal(detectLimit({ exitCode: 1, output: out, end: END })?.kind, 'rate-limit', out);
  });

  it("the limit's message (shown as \"rate-limited by amp (…)\") does not carry the receipt line", () => {
    const out = ampErrorThroughRenderStream('Error: 429 Too Many Requests');
    const v = detectLimit({ exitCode: 1, output: out, end: END });
    assert.equal(v?.kind, 'rate-limit');
    assert.ok(!v?.message.includes('ralph-receipt'), v?.message);
  });
});
