/**
 * Issue 17 §5: the test seams exist only in the bundle the test tiers load. The production build
 * (`node scripts/build.mjs --production`, what `npm run package` ships) and the test build of
 * dist/extension.js are built here into a temporary folder, with the configuration build.mjs uses.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';

/**
 * Strings that only the test API puts into the bundle. (The GitHub stand-in is no test seam: it
 * is the documented setting ralph.github.standInUrl, in both builds.)
 */
const SEAMS = [
  'githubCommentCache',
  'storiesSnapshot',
  'runsSnapshot',
  'memorySnapshot',
  'issuesSnapshot',
  'commandErrors',
  'clearCommandErrors',
  'simulateRestrictedMode',
  'answerConfirmations',
  'taskGraphSnapshot',
  'taskGraphLayoutRuns',
  'taskGraphReceive',
  'receiveAsPage',
  'refreshIssues',
  'storyArtifacts',
  'runnerState',
  'logFolder',
  'prdParses',
  'countPrdParse',
  'statusBarSnapshot',
  'RALPH_TEST_LATE_ANSWER',
] as const;

interface BuildScript {
  extensionConfig(options: { production: boolean; outfile: string }): esbuild.BuildOptions;
}

describe('the production bundle (issue 17 §5)', function () {
  this.timeout(60_000);
  let dir = '';
  let production = '';
  let testBuild = '';

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-bundle-'));
    const { extensionConfig } = (await import('../../scripts/build.mjs')) as BuildScript;
    const started = Date.now();
    const build = async (isProduction: boolean): Promise<string> => {
      const outfile = path.join(dir, isProduction ? 'production' : 'test', 'extension.js');
      await esbuild.build({ ...extensionConfig({ production: isProduction, outfile }), sourcemap: false, logLevel: 'silent' });
      return readFileSync(outfile, 'utf8');
    };
    [production, testBuild] = await Promise.all([build(true), build(false)]);
    // Printed, never asserted: a figure for whoever wonders what the two builds cost.
    console.log(`      (both bundles built in ${Date.now() - started} ms)`);
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('contains no test seam: no test API', () => {
    const found = SEAMS.filter((s) => production.includes(s));
    assert.deepEqual(found, [], `dist/extension.js of the production build contains test seams: ${found.join(', ')}`);
  });

  it('the test build keeps every one of them (what the host and UI tiers use)', () => {
    const missing = SEAMS.filter((s) => !testBuild.includes(s));
    assert.deepEqual(missing, [], `the test build lacks ${missing.join(', ')}`);
  });

  it('still activates: activate and deactivate are exported', () => {
    assert.match(production, /\bactivate\b/);
    assert.match(production, /\bdeactivate\b/);
  });
});
