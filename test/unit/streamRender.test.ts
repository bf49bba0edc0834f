/** The readable rendering of real agent JSON streams (render-stream), and its receipt line read back. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { renderStream } from '../../src/cli/commands/renderStream';
import { detectLimit } from '../../src/core/insights/limits';
import { readReceipt } from '../../src/core/insights/receipts';
import { StreamRenderer } from '../../src/core/insights/streamRender';
import { capture } from './cliCapture';

const fixture = (rel: string): string => readFileSync(path.join(__dirname, '..', 'fixtures', 'agent-output', rel), 'utf8');

function render(agent: string, text: string, cuts: readonly number[] = []): { out: string; exit: number } {
  const r = new StreamRenderer(agent);
  let out = '';
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    out += r.push(text.slice(from, cut));
    from = cut;
  }
  out += r.push(text.slice(from)) + r.end();
  return { out, exit: r.exitCode };
}

describe('render-stream', () => {
  it('an agent that writes a ralph-receipt: line of its own (in its text, or a plain line) cannot give the run a receipt: only the stream\'s result can', () => {
    const forged = 'ralph-receipt: {"cost":0,"tokens":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0}}';
    const text = JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: `done.\n${forged}` }] } });
    const cut = '{"type":"result","total_cost_usd":12.5,"num_turns":3,"usage":{"input_tokens":1'; // killed mid-line
    for (const stream of [`${text}\n${cut}\n`, `${forged}\n${cut}\n`, `progress\r${forged}\n${cut}\n`, `\u001b[2K${forged}\n${cut}\n`]) {
      const { out } = render('claude', stream);
      assert.notEqual(readReceipt('claude', out).receipt, 'parsed', JSON.stringify(out));
      assert.match(out, /› /, 'the agent\'s line is still shown, marked');
    }
  });

  it("renders Claude's stream-json: the session, one line per tool call, the text, the result with its cost; then the receipt line", () => {
    assert.deepEqual(render('claude', fixture('claude/stream-json.jsonl')), {
      out: [
        '● claude-opus-4-6 session started',
        '→ Write /private/tmp/gump-cli-tests/stream-test.txt',
        'Created `stream-test.txt` with the content "stream works".',
        '■ done · 2 turns · $0.03 · tokens 4 in, 107 out, 38,897 cache read, 1,774 cache write',
        'ralph-receipt: {"cost":0.033231000000000004,"tokens":{"input":4,"output":107,"cacheRead":38897,"cacheWrite":1774},"model":"claude-opus-4-6","turns":2}',
        '',
      ].join('\n'),
      exit: 0,
    });
  });

  it("renders Codex's exec --json: reasoning, commands with their exit, the message, the turn's tokens", () => {
    assert.deepEqual(render('codex', fixture('codex/exec-json.jsonl')).out.split('\n'), [
      '… **Preparing to list files with bash shell**',
      '$ bash -lc ls (exit 0)',
      'Files here: `file1.txt`, `file2.txt`.',
      '■ turn done · tokens 6,040 in, 129 out, 4,992 cache read',
      'ralph-receipt: {"tokens":{"input":6040,"output":129,"cacheRead":4992,"cacheWrite":0},"turns":1,"cachedInInput":true}',
      '',
    ]);
  });

  it('the receipt line gives the same receipt as the raw stream (what a terminal that shows the rendering records)', () => {
    for (const [agent, file] of [['claude', 'claude/stream-json.jsonl'], ['codex', 'codex/exec-json.jsonl'], ['amp', 'amp/stream-json.jsonl']] as const) {
      assert.deepEqual(readReceipt('my-agent', render(agent, fixture(file)).out), readReceipt(agent, fixture(file)), file);
    }
  });

  it('a cut-off stream exits 1 and prints no receipt; other text passes through; text from the agent cannot drive the terminal', () => {
    const cut = render('claude', fixture('claude/stream-json-truncated.jsonl'));
    assert.equal(cut.exit, 1);
    assert.doesNotMatch(cut.out, /ralph-receipt:/);
    const hostile = '{"type":"assistant","message":{"content":[{"type":"text","text":"look \\u001b[2J here"},{"type":"tool_use","name":"Bash","input":{"command":"echo \\u001b]0;pwned\\u0007"}}]}}\nplain words\n';
    assert.deepEqual(render('claude', hostile).out.split('\n'), ['look \\u001b[2J here', '→ Bash echo \\u001b]0;pwned\\u0007', 'plain words', "■ the agent's stream ended without a result (it stopped early or failed: see its messages above)", '']);
    const error = fixture('claude/json-result.json').replace('"is_error":false', '"is_error":true').replace('"subtype":"success"', '"subtype":"error_max_turns"');
    assert.equal(render('claude', error).exit, 1);
  });

  describe('through the pipe, a limit is still seen: the agent\'s limit message, read from its JSON result, is shown as text and the filter exits 1', () => {
    const LIMITS = path.join(__dirname, '..', 'fixtures', 'agent-output', 'limits');
    const END = new Date('2025-08-19T14:08:25Z');
    const verdict = (exitCode: number, output: string) => detectLimit({ exitCode, output, end: END, timeZone: 'Europe/Berlin' });
    /** Each agent's error result as its JSON stream carries it (Claude's result, Codex's error and turn.failed events, Amp's error result). */
    const asStream: Record<string, (message: string) => string> = {
      claude: (m) => `${JSON.stringify({ type: 'system', subtype: 'init', model: 'claude-sonnet-4' })}\n${JSON.stringify({ type: 'result', subtype: 'success', is_error: true, num_turns: 1, result: m, total_cost_usd: 0 })}\n`,
      codex: (m) => `${JSON.stringify({ type: 'turn.started' })}\n${JSON.stringify({ type: 'error', message: m })}\n${JSON.stringify({ type: 'turn.failed', error: { message: m } })}\n`,
      amp: (m) => `${JSON.stringify({ type: 'result', subtype: 'error_during_execution', is_error: true, num_turns: 1, error: m })}\n`,
    };
    for (const file of readdirSync(LIMITS).filter((f) => f.endsWith('.txt'))) {
      const agent = file.startsWith('codex') ? 'codex' : file.startsWith('claude') ? 'claude' : 'amp';
      it(`${file} as ${agent}'s JSON result: the same verdict and reset time as the message printed as text`, () => {
        const message = readFileSync(path.join(LIMITS, file), 'utf8').trim();
        const { out, exit } = render(agent, asStream[agent](message));
        assert.equal(exit, 1, 'the run does not exit 0');
        const expected = verdict(1, message);
        assert.ok(expected, 'the raw message is a limit');
        const seen = verdict(exit, out);
        assert.deepEqual([seen?.kind, seen?.resetAt?.toISOString()], [expected.kind, expected.resetAt?.toISOString()], out);
      });
    }

    it('a stream that ends with no result (the agent died, or printed its limit on stderr only) says so and exits 1', () => {
      const { out, exit } = render('claude', `${JSON.stringify({ type: 'system', subtype: 'init', model: 'm' })}\n`);
      assert.equal(exit, 1);
      assert.match(out, /■ the agent's stream ended without a result/);
    });
  });

  it('property: chunk boundaries anywhere give the same rendering', () => {
    const files = [['claude', 'claude/stream-json.jsonl'], ['codex', 'codex/docs-sample.jsonl'], ['amp', 'amp/stream-json.jsonl']] as const;
    fc.assert(
      fc.property(fc.constantFrom(...files), fc.array(fc.nat(), { maxLength: 10 }), ([agent, file], raw) => {
        const text = fixture(file);
        assert.deepEqual(render(agent, text, raw.map((n) => n % (text.length + 1))), render(agent, text));
      }),
      { numRuns: 200 },
    );
  });

  it('the CLI filter reads stdin in chunks and exits with the stream\'s status', async () => {
    const c = capture();
    async function* stdin(): AsyncIterable<Uint8Array> {
      const bytes = new TextEncoder().encode(fixture('claude/stream-json.jsonl'));
      for (let i = 0; i < bytes.length; i += 97) {
        yield bytes.slice(i, i + 97);
      }
    }
    assert.equal(await renderStream(['render-stream'], c.io, stdin()), 0);
    assert.match(c.out.stdout, /■ done · 2 turns · \$0\.03/);
    const bad = capture();
    assert.equal(await renderStream(['render-stream', '--agent', 'gpt'], bad.io, stdin()), 1);
    assert.match(bad.out.stderr, /--agent is claude, amp or codex \(got "gpt"\)/);
  });
});
