/** Receipts read from real agent output (test/fixtures/agent-output, sources in SOURCES.md), streamed in chunks. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { MAX_RECEIPT_LINE, type Receipt, ReceiptReader, readReceipt, receiptReaderFor } from '../../src/core/insights/receipts';
import { customLineFormat } from '../../src/core/insights/receiptFormats';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'agent-output');
const fixture = (rel: string): string => readFileSync(path.join(FIXTURES, rel), 'utf8');

/** Every fixture, the agent whose reader reads it, and the receipt a person reading it would write down. */
const EXPECTED: Record<string, { agent: string; receipt: Receipt }> = {
  'claude/json-result.json': {
    agent: 'claude',
    receipt: { receipt: 'parsed', cost: 0.032542999999999996, tokens: { input: 4, output: 101, cacheRead: 38821, cacheWrite: 1694 }, model: 'claude-opus-4-6', turns: 2 },
  },
  'claude/stream-json.jsonl': {
    agent: 'claude',
    receipt: { receipt: 'parsed', cost: 0.033231000000000004, tokens: { input: 4, output: 107, cacheRead: 38897, cacheWrite: 1774 }, model: 'claude-opus-4-6', turns: 2 },
  },
  // usage covers the main model only (output 1005); modelUsage names both: 428 + 1005.
  'claude/json-result-two-models.json': {
    agent: 'claude',
    receipt: { receipt: 'parsed', cost: 0.017215, tokens: { input: 0, output: 1433, cacheRead: 0, cacheWrite: 0 }, model: 'minimax-m2', turns: 32 },
  },
  'claude/stream-json-truncated.jsonl': { agent: 'claude', receipt: { receipt: 'unreadable' } },
  'codex/docs-sample.jsonl': { agent: 'codex', receipt: { receipt: 'parsed', tokens: { input: 24763, output: 122, cacheRead: 24448, cacheWrite: 0 }, turns: 1, cachedInInput: true } },
  'codex/exec-json.jsonl': { agent: 'codex', receipt: { receipt: 'parsed', tokens: { input: 6040, output: 129, cacheRead: 4992, cacheWrite: 0 }, turns: 1, cachedInInput: true } },
  'codex/exec-json-simple.jsonl': { agent: 'codex', receipt: { receipt: 'parsed', tokens: { input: 2946, output: 7, cacheRead: 0, cacheWrite: 0 }, turns: 1, cachedInInput: true } },
  'codex/exec-json-truncated.jsonl': { agent: 'codex', receipt: { receipt: 'unreadable' } },
  'amp/stream-json.jsonl': { agent: 'amp', receipt: { receipt: 'parsed', turns: 1 } },
  'copilot/stderr-one-model.txt': { agent: 'copilot', receipt: { receipt: 'parsed', model: 'claude-sonnet-4.6' } },
  'copilot/stderr-two-models.txt': { agent: 'copilot', receipt: { receipt: 'none' } },
  'copilot/stderr-older-format.txt': { agent: 'copilot', receipt: { receipt: 'parsed', model: 'claude-haiku-4.5' } },
  'custom/ralph-receipt.txt': {
    agent: 'my-agent',
    receipt: { receipt: 'parsed', cost: 0.1234, tokens: { input: 1200, output: 340, cacheRead: 0, cacheWrite: 0 }, model: 'my-model-1', turns: 7 },
  },
};

/** Every agent's receipt samples (`limits/` holds limit messages, read by test/unit/limits.test.ts). */
const fixtureFiles = (): string[] =>
  readdirSync(FIXTURES, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'limits')
    .flatMap((d) => readdirSync(path.join(FIXTURES, d.name)).map((f) => `${d.name}/${f}`));

/** The output fed in pieces cut at the given places. */
function inChunks(agent: string, text: string, cuts: readonly number[]): Receipt {
  const r = receiptReaderFor(agent);
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    r.push(text.slice(from, cut));
    from = cut;
  }
  r.push(text.slice(from));
  return r.end();
}

describe('receipts', () => {
  it('every fixture has an expected receipt (a new fixture needs one)', () => {
    assert.deepEqual(fixtureFiles().sort(), Object.keys(EXPECTED).sort());
  });

  for (const [file, { agent, receipt }] of Object.entries(EXPECTED)) {
    it(`reads ${file} as ${receipt.receipt}`, () => {
      assert.deepEqual(readReceipt(agent, fixture(file)), receipt);
    });
  }

  it('a custom command or ralph.sh is read with every format', () => {
    for (const file of ['claude/stream-json.jsonl', 'codex/exec-json.jsonl', 'copilot/stderr-one-model.txt']) {
      assert.deepEqual(readReceipt('ralphSh', fixture(file)), EXPECTED[file].receipt, file);
    }
    assert.deepEqual(readReceipt('claude', fixture('codex/exec-json.jsonl')), { receipt: 'none' }, "Claude's reader does not read Codex");
  });

  it("Claude's total_cost_usd is the session's running total: the last result counts, never a sum", () => {
    const stream = fixture('claude/stream-json.jsonl');
    const result = stream.trimEnd().split('\n').pop() ?? '';
    const later = result.replace('"total_cost_usd":0.033231000000000004', '"total_cost_usd":0.05').replace('"num_turns":2', '"num_turns":3');
    const r = readReceipt('claude', `${stream}${later}\n`);
    assert.equal(r.receipt === 'parsed' && r.cost, 0.05);
    assert.equal(r.receipt === 'parsed' && r.turns, 3);
  });

  it('a receipt with a wrong number is unreadable, and a later good one replaces it', () => {
    const good = fixture('claude/json-result.json').trim();
    for (const bad of [good.replace('"total_cost_usd":0.032542999999999996', '"total_cost_usd":-1'), good.replace('"output_tokens":101', '"output_tokens":1.5').replace('"outputTokens":101', '"outputTokens":"101"'), good.replace('"num_turns":2', '"num_turns":"2"')]) {
      assert.deepEqual(readReceipt('claude', `${bad}\n`), { receipt: 'unreadable' }, bad.slice(0, 80));
    }
    assert.equal(readReceipt('claude', `${good.slice(0, 120)}\n${good}\n`).receipt, 'parsed');
    assert.deepEqual(readReceipt('my-agent', 'ralph-receipt: {"cost": "0.1"}\n'), { receipt: 'unreadable' });
    assert.deepEqual(readReceipt('my-agent', 'ralph-receipt: {"tokens": {"input": 1}}\n'), { receipt: 'unreadable' }, 'tokens need all four counts');
    assert.deepEqual(readReceipt('my-agent', 'ralph-receipt: {"cost": 0.5, "model": "evil\\u001b[2Jmodel"}\n'), { receipt: 'unreadable' }, 'no control characters in a model name');
    assert.deepEqual(readReceipt('my-agent', 'ralph-receipt: {}\n'), { receipt: 'none' });
  });

  it('the ralph-receipt line wins over what the agent printed, and reads through terminal escapes and CRLF', () => {
    const out = `${fixture('claude/stream-json.jsonl')}\x1b[32mralph-receipt: {"cost": 1.5}\x1b[0m\r\n`;
    assert.deepEqual(readReceipt('claude', out), { receipt: 'parsed', cost: 1.5 });
    assert.deepEqual(readReceipt('claude', fixture('claude/json-result.json').replace(/\n/g, '\r\n')), EXPECTED['claude/json-result.json'].receipt);
  });

  it('a line longer than the bound is skipped, not kept; a receipt in it is unreadable', () => {
    const r = new ReceiptReader([], customLineFormat());
    r.push('ralph-receipt: {"cost": 1, "model": "');
    for (let i = 0; i < 9; i++) {
      r.push('x'.repeat(MAX_RECEIPT_LINE / 8));
    }
    r.push('"}\nother output\n');
    assert.deepEqual(r.end(), { receipt: 'unreadable' });
    const long = readReceipt('claude', `${'y'.repeat(MAX_RECEIPT_LINE + 10)}\n${fixture('claude/json-result.json')}`);
    assert.equal(long.receipt, 'parsed', 'a long line of other output does not hide the receipt after it');
  });

  it('property: chunk boundaries anywhere give the same receipt', () => {
    const files = Object.keys(EXPECTED);
    fc.assert(
      fc.property(fc.constantFrom(...files), fc.array(fc.nat(), { maxLength: 12 }), (file, raw) => {
        const text = fixture(file);
        const cuts = raw.map((n) => n % (text.length + 1));
        assert.deepEqual(inChunks(EXPECTED[file].agent, text, cuts), EXPECTED[file].receipt);
      }),
      { numRuns: 300 },
    );
  });

  it('property: garbage and cut-up receipts never throw and never give a wrong kind of number', () => {
    const pieces = Object.keys(EXPECTED).map(fixture);
    const piece = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.constantFrom(...pieces).chain((t) => fc.tuple(fc.nat(t.length), fc.nat(t.length)).map(([a, b]) => t.slice(Math.min(a, b), Math.max(a, b)))),
      fc.constantFrom('\n', '\r\n', '{"type":"result"', '{"type":"turn.completed","usage":', 'ralph-receipt: ', 'Total usage est: 1\nUsage by model:\n', '\x1b[2J', '}'),
    );
    fc.assert(
      fc.property(fc.constantFrom('claude', 'amp', 'codex', 'copilot', 'ralphSh', 'my-agent'), fc.array(piece, { maxLength: 30 }), (agent, parts) => {
        const r = receiptReaderFor(agent);
        parts.forEach((p) => r.push(p));
        const got = r.end();
        assert.ok(['parsed', 'none', 'unreadable'].includes(got.receipt));
        if (got.receipt === 'parsed') {
          assert.ok(got.cost === undefined || (Number.isFinite(got.cost) && got.cost >= 0));
          for (const n of [got.turns, ...Object.values(got.tokens ?? {})]) {
            assert.ok(n === undefined || (Number.isSafeInteger(n) && n >= 0));
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
