/**
 * `ralph-workbench context --story ID` includes the issue-plan section exactly as the agent's
 * prompt does (issue 16, item 17), reading GitHub like `artifacts` (the emulator here).
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runContext } from '../../src/cli/context';
import { buildPrompt } from '../../src/core/context/prompt';
import { analyzePrd } from '../../src/core/prd/index';
import { readIssuePlan, readIssues } from '../../src/node/github/artifacts';
import { GitHubClient } from '../../src/node/github/client';
import { GitHubEmulator } from '../support/githubEmulator';

const TOKEN = 'ghp_emulatorContextToken0123456789';
const PLAN = 'thoughts/shared/plans/2026-11-16-linked-plan.md';
const blob = (p: string): string => `https://github.com/acme/taskflow/blob/main/${p}`;

describe('context --story includes the issue plan as the prompt does (emulator)', function () {
  this.timeout(30_000);
  let gh: GitHubEmulator;
  let root: string;

  beforeEach(async () => {
    gh = await new GitHubEmulator({ token: TOKEN }).start();
    gh.addIssue(42, 'Task priorities');
    root = mkdtempSync(path.join(tmpdir(), 'ralph-context-'));
    const prd = { projectName: 'p', userStories: [{ id: 'US-1', title: 'Priorities', priority: 1, passes: false, description: 'd', acceptanceCriteria: ['a'], issue: 42 }, { id: 'US-2', title: 'Other', priority: 2, passes: false, description: 'd', acceptanceCriteria: ['a'] }] };
    writeFileSync(path.join(root, 'prd.json'), JSON.stringify(prd, null, 2));
    mkdirSync(path.join(root, 'thoughts/shared/plans'), { recursive: true });
    writeFileSync(path.join(root, PLAN), '# Linked plan\n\nPhase 1: do it.\n');
  });

  afterEach(async () => {
    await gh.stop();
    rmSync(root, { recursive: true, force: true });
  });

  async function context(args: string[], env: NodeJS.ProcessEnv = { GH_TOKEN: TOKEN }): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runContext(['context', ...args, '--prd', path.join(root, 'prd.json')], {
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
      readFile: (p) => readFileSync(p),
      env,
      clientOptions: { timeoutMs: 2000, retryAfterBaseMs: 10 },
    });
    assert.ok(!out.includes(TOKEN) && !err.includes(TOKEN), 'the token never appears in output');
    return { code, out, err };
  }

  it('--story ID prints the same prompt the shared builder makes from readIssues + readIssuePlan, naming the comment', async () => {
    const c = gh.addComment(42, `## Implementation Plan\n\n${blob(PLAN)}`, { login: 'lead', association: 'MEMBER' });
    const r = await context(['--story', 'US-1', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl]);
    assert.equal(r.code, 0, r.err);
    // What the extension's runner builds for the same story (its issue read the same way).
    const client = new GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow' });
    const read = await readIssues({ root, repo: { owner: 'acme', repo: 'taskflow', host: 'github.com' }, client, issues: [42] });
    const issuePlan = await readIssuePlan(root, read.map((x) => x.result));
    const expected = buildPrompt({ prd: analyzePrd(readFileSync(path.join(root, 'prd.json'))), storyId: 'US-1', issuePlan, files: { prd: 'prd.json', progress: 'progress.txt', pin: 'specs/INDEX.md' } });
    const section = (text: string): string => text.slice(text.indexOf('## GitHub issue #42'));
    assert.match(r.out, /## GitHub issue #42 — Task priorities/);
    assert.equal(section(r.out).trimEnd(), section(expected).trimEnd());
    assert.ok(r.out.includes(`Linked by @lead (MEMBER) in ${c.html_url}.`), r.out.slice(-800));
    assert.match(r.out, /# Linked plan\n\nPhase 1: do it\./);
  });

  it('the positional form keeps working and gives the same prompt', async () => {
    gh.addComment(42, `## Implementation Plan\n\n${blob(PLAN)}`);
    const a = await context(['--story', 'US-1', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl]);
    const b = await context(['US-1', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl]);
    assert.equal(b.code, 0, b.err);
    assert.equal(a.out, b.out);
  });

  it('--offline reads no GitHub: a plan found by its file name still goes in; none is linked', async () => {
    writeFileSync(path.join(root, 'thoughts/shared/plans/2026-11-17-GH-0042-by-name.md'), '# By name\n');
    const r = await context(['--story', 'US-1', '--offline', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl]);
    assert.equal(r.code, 0, r.err);
    assert.equal(gh.requests.length, 0);
    assert.match(r.out, /Found by its file name \(no issue comment links it\)\.[\s\S]*# By name/);
  });

  it('an untrusted comment gives no plan in the context either', async () => {
    gh.addComment(42, `## Implementation Plan\n\n${blob(PLAN)}`, { login: 'drive-by', association: 'NONE' });
    const r = await context(['--story', 'US-1', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl]);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /Linked plan/);
  });

  it('a story without an issue: no request, no section; bad options are refused with usage', async () => {
    const r = await context(['--story', 'US-2', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl]);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /GitHub issue/);
    assert.equal(gh.requests.length, 0);
    const bad = await context(['--story', 'US-1', '--api-url', 'ftp://x']);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /--api-url must be an http\(s\) URL/);
    const both = await context(['US-1', '--story', 'US-2']);
    assert.equal(both.code, 1);
    assert.match(both.err, /one story/);
  });
});
