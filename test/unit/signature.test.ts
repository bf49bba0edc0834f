/** Failure signatures (src/core/insights/signature.ts): stable under what changes from run to run, different for different errors. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { failureDetails, failureSignature, groupBySignature, repeatedFailure, MAX_SIGNATURE_CHARS, repeatedSignature, SIGNATURE_TAIL_CHARS } from '../../src/core/insights/signature';
import type { RunRecord } from '../../src/core/runs/runs';

/** Error outputs with holes for what changes between runs: a path, a line, a column, a time, a hash, a count, an identifier. */
const TEMPLATES: readonly ((v: Vary) => string)[] = [
  (v) => `${v.path}(${v.line},${v.col}): error TS2322: Type '${v.ident}' is not assignable to type 'number'.`,
  (v) => `${v.path}:${v.line}:${v.col} - error TS2345: Argument of type '${v.ident}' is not assignable to parameter of type 'string'.`,
  (v) => `Error: Cannot find module '${v.ident}' imported from ${v.path}`,
  (v) => `  ${v.count} failing\n  1) sorts tasks by priority:\n     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: ${v.count} !== ${v.line}`,
  (v) => `[${v.time}] FATAL: migration ${v.hash} failed after ${v.count}ms`,
  (v) => `npm ERR! code ELIFECYCLE\nnpm ERR! errno ${v.count}\nnpm ERR! demo@1.0.${v.count} test: \`mocha\``,
];

interface Vary {
  path: string;
  line: number;
  col: number;
  time: string;
  hash: string;
  count: number;
  ident: string;
}

const vary: fc.Arbitrary<Vary> = fc.record({
  path: fc.array(fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/), { minLength: 1, maxLength: 4 }).map((parts) => `src/${parts.join('/')}.ts`),
  line: fc.integer({ min: 1, max: 99999 }),
  col: fc.integer({ min: 1, max: 500 }),
  time: fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString()),
  hash: fc.stringMatching(/^[0-9a-f]{12,40}$/).filter((h) => /\d/.test(h) && /[a-f]/.test(h)),
  count: fc.integer({ min: 0, max: 100000 }),
  ident: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/),
});

const run = (over: Partial<RunRecord>): RunRecord => ({
  start: '2026-11-26T10:00:00.000Z',
  end: '2026-11-26T10:01:00.000Z',
  storyId: 'US-1',
  storyTitle: 'One',
  agent: 'claude',
  exitCode: 1,
  durationMs: 60000,
  passingBefore: 0,
  passingAfter: 0,
  storyPasses: false,
  commit: null,
  complete: false,
  outcome: 'failed',
  promptFile: '',
  iteration: 1,
  loopId: 'l',
  ...over,
});

describe('failure signatures', () => {
  it('a TypeScript error reads as the issue says: the code kept, the quoted names and the place replaced', () => {
    const out = "Running tsc…\nsrc/api/tasks.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.\nFound 1 error in src/api/tasks.ts:42\n";
    assert.equal(failureSignature(out), "<path>(<n>,<n>): error TS2322: Type '…' is not assignable to type '…'. | Found <n> error in <path>:<n>");
  });

  it('a failure\'s details: its signature and the last error lines as printed (ANSI escapes removed), the signature made from the last of them', () => {
    const out = "Running tsc…\n\u001b[31msrc/api/tasks.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.\u001b[0m\nsome progress\nFound 1 error in src/api/tasks.ts:42\n";
    const d = failureDetails(out);
    assert.equal(d?.signature, failureSignature(out));
    assert.deepEqual(d?.errorLines, ["src/api/tasks.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.", 'Found 1 error in src/api/tasks.ts:42']);
    // no error words: the last lines, as the signature takes them
    assert.deepEqual(failureDetails('one\ntwo\nthree\n')?.errorLines, ['one', 'two', 'three']);
    assert.equal(failureDetails('\n  \n'), undefined);
    const many = failureDetails(Array.from({ length: 40 }, (_, i) => `error ${i}: ${'y'.repeat(1000)}`).join('\n'));
    assert.ok(many && many.errorLines.length <= 10 && many.errorLines.every((l) => l.length <= 300), JSON.stringify(many?.errorLines.map((l) => l.length)));
    assert.match(many?.errorLines.at(-1) ?? '', /^error 39: /);
  });

  it('is stable when the numbers, paths, times, hashes and names change (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: TEMPLATES.length - 1 }), vary, vary, fc.string({ maxLength: 200 }).filter((s) => !/error|fail|err|✗|×|✖|cannot|exception|panic|fatal|assert|undefined|traceback|not found|could not/i.test(s)), (t, a, b, noise) => {
        const one = failureSignature(`${noise}\n${TEMPLATES[t](a)}\n`);
        const two = failureSignature(`working…\n${TEMPLATES[t](b)}\n`);
        assert.ok(one !== undefined && one.length <= MAX_SIGNATURE_CHARS);
        assert.equal(one, two);
      }),
    );
  });

  it('different errors give different signatures (property over the templates)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: TEMPLATES.length - 1 }), fc.integer({ min: 0, max: TEMPLATES.length - 1 }), vary, (i, j, v) => {
        fc.pre(i !== j);
        assert.notEqual(failureSignature(TEMPLATES[i](v)), failureSignature(TEMPLATES[j](v)));
      }),
    );
    assert.notEqual(failureSignature('error TS2322: x'), failureSignature('error TS2345: x'));
  });

  it('reads only the end of the output, strips colours, and has nothing to say of no output', () => {
    const early = 'error: an early failure long ago\n';
    const late = `${'ok\n'.repeat(SIGNATURE_TAIL_CHARS)}\x1b[31mError: the last failure\x1b[0m\n`;
    assert.equal(failureSignature(early + late), 'Error: the last failure');
    assert.equal(failureSignature(''), undefined);
    assert.equal(failureSignature('\n \n'), undefined);
    // no error words: the last lines are the signature
    assert.equal(failureSignature('step one\nstep 2 of 3\n'), 'step one | step <n> of <n>');
  });

  it('groups failed runs by signature, the most frequent first, with the sentence the Runs view shows', () => {
    const sig = "error TS2322: Type '…' is not assignable to type '…'.";
    const runs = [
      run({ storyId: 'US-1', signature: sig }),
      run({ storyId: 'US-2', signature: 'Error: Cannot find module \'…\'' }),
      run({ storyId: 'US-1', outcome: 'passed', signature: undefined }),
      run({ storyId: 'US-3', signature: sig }),
      run({ storyId: 'US-3', signature: sig }),
      run({ storyId: 'US-4', signature: undefined }),
    ];
    const groups = groupBySignature(runs);
    assert.deepEqual(groups.map((g) => [g.label, g.runs, g.storyIds]), [
      [`3 iterations failed with: ${sig}`, [4, 3, 0], ['US-1', 'US-3']],
      ["1 iteration failed with: Error: Cannot find module '…'", [1], ['US-2']],
    ]);
  });

  it('a repeated failure to report: its signature, how many times in a row, and the last run\'s error lines', () => {
    const sig = "error TS2322: Type '…' is not assignable to type '…'.";
    const runs = [
      run({ signature: 'Error: other' }),
      run({ signature: sig, errorLines: ['first'] }),
      run({ storyId: 'US-2', signature: sig }),
      run({ outcome: 'rate-limited' }),
      run({ signature: sig, errorLines: ['second'] }),
      run({ signature: sig }),
    ];
    assert.deepEqual(repeatedFailure(runs, 'US-1'), { signature: sig, count: 3, errorLines: [] });
    assert.deepEqual(repeatedFailure(runs.slice(0, 5), 'US-1'), { signature: sig, count: 2, errorLines: ['second'] });
    assert.equal(repeatedFailure(runs, 'US-2'), undefined);
    assert.equal(repeatedFailure([...runs, run({ outcome: 'passed' })], 'US-1'), undefined);
  });

  it('a signature seen twice in a row for one story is the one to offer; a pass between, another signature or a limit wait do not count as a repeat', () => {
    const sig = 'Error: x';
    assert.equal(repeatedSignature([run({ signature: sig }), run({ storyId: 'US-2', signature: sig }), run({ signature: sig })], 'US-1'), sig);
    assert.equal(repeatedSignature([run({ signature: sig }), run({ outcome: 'rate-limited' }), run({ signature: sig })], 'US-1'), sig);
    assert.equal(repeatedSignature([run({ signature: sig }), run({ outcome: 'passed' }), run({ signature: sig })], 'US-1'), undefined);
    assert.equal(repeatedSignature([run({ signature: sig }), run({ signature: 'Error: y' })], 'US-1'), undefined);
    assert.equal(repeatedSignature([run({ signature: sig })], 'US-1'), undefined);
  });
});
