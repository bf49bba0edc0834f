/**
 * The test runner's summary names the failed tests (scripts/mocha-output.mjs): a CI log is read
 * from its end, and the end must say which test failed and why, not only how many.
 */
import * as assert from 'node:assert/strict';

interface MochaOutput {
  mochaCounts(out: string): { passes: number; failures: number; pending: number };
  mochaFailures(out: string): string[];
}
let mochaCounts: MochaOutput['mochaCounts'];
let mochaFailures: MochaOutput['mochaFailures'];

// The spec reporter's output of a run with two failures, colours included (as CI prints it).
const SPEC = [
  '  View-title and inline actions (demo workspace, fake agent)',
  '    \u001b[32m✔\u001b[0m nothing selected: every Stories and Runs title action works (37126ms)',
  '    \u001b[31m1) a run selected: the Runs and Stories title actions work\u001b[0m',
  '',
  '  \u001b[92m53 passing\u001b[0m (16m)',
  '  \u001b[31m2 failing\u001b[0m',
  '',
  '  1) View-title and inline actions of the Stories and Runs views (demo workspace, fake agent)',
  '       a run selected: the Runs and Stories title actions work:',
  '     locator.fill: Timeout 30000ms exceeded.',
  'Call log:',
  '  - waiting for locator(\'.quick-input-widget input\')',
  '',
  '  2) GitHub publish',
  '       a story that fails twice',
  '       with the same signature:',
  '',
  '     AssertionError [ERR_ASSERTION]: no offer within 30 s',
  '      at Context.<anonymous> (test/host/githubPublish.test.ts:121:21)',
  '',
].join('\n');

describe('mocha output in the test summary', () => {
  before(async () => {
    ({ mochaCounts, mochaFailures } = (await import('../../scripts/mocha-output.mjs')) as MochaOutput);
  });

  it('counts the passing and failing tests', () => {
    assert.deepEqual(mochaCounts(SPEC), { passes: 53, failures: 2, pending: 0 });
  });

  it('names each failed test with the first line of its error, the title over several lines joined', () => {
    assert.deepEqual(mochaFailures(SPEC), [
      '1) View-title and inline actions of the Stories and Runs views (demo workspace, fake agent) a run selected: the Runs and Stories title actions work: locator.fill: Timeout 30000ms exceeded.',
      '2) GitHub publish a story that fails twice with the same signature: AssertionError [ERR_ASSERTION]: no offer within 30 s',
    ]);
  });

  it('lists nothing when nothing failed, and never the "1) …" marks printed before the epilogue', () => {
    assert.deepEqual(mochaFailures(SPEC.slice(0, SPEC.indexOf('2 failing'))), []);
    assert.deepEqual(mochaFailures('  3 passing (1s)\n'), []);
  });

  it('never takes a numbered line inside an error for a failure of its own', () => {
    const out = '  1 failing\n\n  1) suite\n       test:\n     Error: the list was\n  3) not a failure\n      at x (y.ts:1:1)\n';
    assert.deepEqual(mochaFailures(out), ['1) suite test: Error: the list was']);
  });

  it('cuts a very long line', () => {
    const long = `  1 failing\n\n  1) suite\n       test:\n     Error: ${'x'.repeat(1000)}\n`;
    const [line] = mochaFailures(long);
    assert.equal(line.length, 400);
    assert.ok(line.endsWith('…'));
  });
});
