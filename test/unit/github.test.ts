/**
 * The GitHub layer against the local REST emulator (127.0.0.1 only): the client, the loader and
 * the CLI `artifacts` command, including every fault.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runArtifacts, type ArtifactsIo } from '../../src/cli/commands/artifacts';
import { SELF_HEAL_NOTE } from '../../src/core/artifacts/protocol';
import { issueArtifacts } from '../../src/core/artifacts/issueArtifacts';
import { readIssuePlan, readIssues, selfHeal } from '../../src/node/github/artifacts';
import { GitHubClient } from '../../src/node/github/client';
import { GitHubEmulator } from '../support/githubEmulator';
import { recordUnhandledRejections } from '../support/unhandled';

const TOKEN = 'ghp_emulatorTestToken0123456789';
const blob = (p: string, repo = 'acme/taskflow', ref = 'main'): string => `https://github.com/${repo}/blob/${ref}/${p}`;

const files = {
  research42: 'thoughts/shared/research/2026-11-15-GH-0042-task-priorities.md',
  plan42: 'thoughts/shared/plans/2026-11-16-GH-42-task-priorities.md',
  review42: 'thoughts/shared/reviews/2026-11-16-GH-0042-critique.md',
  research420: 'thoughts/shared/research/2026-11-18-GH-0420-other.md',
  group43: 'thoughts/shared/plans/2026-11-17-group-GH-0043-notifications.md',
};

interface JsonOut {
  issues: {
    number: number;
    title: string | null;
    state: string | null;
    phase: string;
    artifacts: { kind: string; status: string; url?: string; commentUrl?: string; path?: string; verdict?: string }[];
    warnings: string[];
    error?: string;
  }[];
  requests: number;
}

describe('GitHub layer against the emulator', function () {
  this.timeout(30_000);
  let gh: GitHubEmulator;
  let root: string;
  const unhandled = recordUnhandledRejections();

  beforeEach(async () => {
    gh = await new GitHubEmulator({ token: TOKEN }).start();
    gh.addIssue(42, 'Task priorities', ['ralph']);
    gh.addIssue(43, 'Notifications');
    root = mkdtempSync(path.join(tmpdir(), 'ralph-gh-'));
    for (const f of Object.values(files)) {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), f.includes('reviews') ? '---\nverdict: APPROVED\n---\n# Review\n' : '# Doc\n');
    }
  });

  afterEach(async () => {
    await gh.stop();
    rmSync(root, { recursive: true, force: true });
    assert.deepEqual(unhandled, [], 'no unhandled rejection');
  });

  async function cli(args: string[], env: NodeJS.ProcessEnv = { GH_TOKEN: TOKEN }, clientOptions: ArtifactsIo['clientOptions'] = { retryAfterBaseMs: 10, timeoutMs: 2000 }): Promise<{ code: number; out: string; err: string; json?: JsonOut }> {
    let out = '';
    let err = '';
    const code = await runArtifacts([...args, '--repo', 'acme/taskflow', '--api-url', gh.apiUrl], {
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
      env,
      cwd: root,
      clientOptions,
    });
    assert.ok(!out.includes(TOKEN) && !err.includes(TOKEN), 'the token never appears in output');
    return { code, out, err, json: args.includes('--json') ? (JSON.parse(out) as JsonOut) : undefined };
  }

  it('finds an artifact by its comment, maps it to the local file and counts requests', async () => {
    gh.addComment(42, `## Research Document\n\n${blob(files.research42)}\n\nKey findings: X.`);
    const r = await cli(['42', '--json']);
    assert.equal(r.code, 0, r.err);
    const issue = r.json!.issues[0];
    assert.equal(issue.title, 'Task priorities');
    assert.equal(issue.state, 'open');
    assert.deepEqual(issue.artifacts[0], {
      kind: 'research',
      status: 'linked',
      url: blob(files.research42),
      commentUrl: gh.issues.get(42)!.comments[0].html_url,
      path: files.research42,
    });
    assert.equal(r.json!.requests, 2, 'the issue and one page of comments');
    assert.ok(gh.requests.every((q) => q.authorized));
  });

  it('finds artifacts by file name, padded and unpadded, but not GH-0420 for #42', async () => {
    const r = await cli(['42', '#43', '--json']);
    assert.equal(r.code, 0, r.err);
    const [i42, i43] = r.json!.issues;
    assert.deepEqual(
      i42.artifacts.map((a) => [a.kind, a.status, a.path, a.verdict]),
      [
        ['research', 'on-disk', files.research42, undefined],
        ['plan', 'on-disk', files.plan42, undefined],
        ['review', 'on-disk', files.review42, 'APPROVED'],
        ['implementation', 'missing', undefined, undefined],
      ],
    );
    assert.equal(i42.phase, 'implement');
    assert.deepEqual(i43.artifacts.map((a) => [a.kind, a.status]).slice(0, 2), [['research', 'missing'], ['group-plan', 'on-disk']]);
    assert.match(i43.warnings.join(), /no research/);
  });

  it('the most recent comment wins', async () => {
    gh.addComment(42, `## Implementation Plan\n\n${blob('thoughts/shared/plans/old.md')}`);
    gh.addComment(42, `## Implementation Plan\n\n${blob(files.plan42)}`);
    const r = await cli(['42', '--json']);
    assert.equal(r.json!.issues[0].artifacts.find((a) => a.kind === 'plan')!.path, files.plan42);
  });

  it('a header in comment 230 of 250 is found (every page is read)', async () => {
    for (let i = 1; i <= 250; i++) {
      gh.addComment(42, i === 230 ? `## Plan Review\n\nVERDICT: NEEDS_ITERATION\n\nFull critique: ${blob(files.review42)}` : `Comment ${i}`);
    }
    const r = await cli(['42', '--json']);
    const review = r.json!.issues[0].artifacts.find((a) => a.kind === 'review')!;
    assert.deepEqual([review.status, review.path, review.verdict], ['linked', files.review42, 'NEEDS_ITERATION']);
    assert.equal(r.json!.issues[0].phase, 'plan');
    assert.equal(r.json!.requests, 4, 'the issue and three pages of 100');
    assert.ok(gh.requests.filter((q) => q.url.includes('/comments')).every((q) => q.url.includes('per_page=100')));
  });

  it('a URL into another repository or with ../ never maps to a local file', async () => {
    gh.addComment(42, `## Research Document\n\n${blob(files.research42, 'evil/taskflow')}`);
    gh.addComment(42, `## Implementation Plan\n\nhttps://github.com/acme/taskflow/blob/main/thoughts/../../outside.md`);
    writeFileSync(path.join(path.dirname(root), 'outside.md'), 'outside');
    const r = await cli(['42', '--json']);
    const a = r.json!.issues[0].artifacts;
    const research = a.filter((x) => x.kind === 'research');
    assert.deepEqual(research.map((x) => [x.status, x.path]), [['linked', undefined], ['on-disk', files.research42]]);
    const plan = a.filter((x) => x.kind === 'plan');
    assert.deepEqual(plan.map((x) => [x.status, x.path]), [['linked', undefined], ['on-disk', files.plan42]]);
    assert.ok(a.every((x) => !x.path || !x.path.includes('..')));
    rmSync(path.join(path.dirname(root), 'outside.md'));
  });

  it('self-heal posts exactly one well-formed comment per artifact, ≥ 1 s apart; a second self-heal posts none', async () => {
    gh.defaultBranch = 'trunk';
    gh.addComment(42, `## Research Document\n\n${blob(files.research42)}`);
    const first = await cli(['42', '--self-heal', '--json']);
    assert.equal(first.code, 0, first.err);
    const posted = gh.issues.get(42)!.comments.slice(1).map((c) => c.body);
    assert.deepEqual(posted, [
      `## Implementation Plan\n\n${blob(files.plan42, 'acme/taskflow', 'trunk')}\n\n${SELF_HEAL_NOTE}`,
      `## Plan Review\n\n${blob(files.review42, 'acme/taskflow', 'trunk')}\n\n${SELF_HEAL_NOTE}`,
    ]);
    const posts = gh.requests.filter((q) => q.method === 'POST');
    assert.ok(posts[1].at - posts[0].at >= 990, `writes ${posts[1].at - posts[0].at} ms apart`);
    assert.deepEqual(first.json!.issues[0].artifacts.map((a) => a.status), ['linked', 'linked', 'linked', 'missing']);
    const second = await cli(['42', '--self-heal', '--json']);
    assert.equal(second.code, 0);
    assert.equal(gh.issues.get(42)!.comments.length, 3, 'nothing posted the second time');
  });

  it('self-heal re-reads the comments right before posting: a link posted meanwhile is not posted again', async () => {
    const client = new GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow', retryAfterBaseMs: 10 });
    const repo = { owner: 'acme', repo: 'taskflow', host: 'github.com' };
    const [read] = await readIssues({ root, repo, client, issues: [42] });
    // Another window links the plan after this one read the issue.
    gh.addComment(42, `## Implementation Plan\n\n${blob(files.plan42, 'acme/taskflow', 'abc123')}\n\n${SELF_HEAL_NOTE}`);
    const posted = await selfHeal(client, repo, 42, read.result.artifacts.filter((a) => a.kind === 'plan'), { root });
    assert.deepEqual(posted, []);
    assert.equal(gh.issues.get(42)!.comments.length, 1);
  });

  it('refresh with nothing changed costs only 304s (50 issues × 150 comments)', async () => {
    const issues: number[] = [];
    for (let n = 100; n < 150; n++) {
      gh.addIssue(n);
      issues.push(n);
      for (let i = 0; i < 150; i++) {
        gh.addComment(n, i === 149 ? `## Research Document\n\n${blob(`thoughts/shared/research/GH-${n}.md`)}` : `comment ${i}`);
      }
    }
    const client = new GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow' });
    const repo = { owner: 'acme', repo: 'taskflow', host: 'github.com' };
    const first = await readIssues({ root, repo, client, issues });
    const firstCount = client.requestCount;
    assert.ok(first.every((r) => r.result.artifacts[0].status === 'linked'));
    const mark = gh.requests.length;
    const again = await readIssues({ root, repo, client, issues });
    const refresh = gh.since(mark);
    assert.equal(firstCount, 150, 'first load: 50 × (issue + 2 pages)');
    assert.equal(refresh.length, 150);
    assert.ok(refresh.every((q) => q.status === 304 && q.ifNoneMatch), 'every refresh request is a conditional 304');
    assert.deepEqual(again.map((r) => r.result), first.map((r) => r.result), 'the cached bodies give the same result');
    assert.equal(client.notModifiedCount, 150);
  });

  it('without a token: files on disk only, a note on stderr, no request, exit 0', async () => {
    const r = await cli(['42', '--json'], {});
    assert.equal(r.code, 0);
    assert.match(r.err, /no GH_TOKEN or GITHUB_TOKEN/);
    assert.equal(r.json!.requests, 0);
    assert.equal(gh.requests.length, 0);
    assert.equal(r.json!.issues[0].artifacts[0].status, 'on-disk');
  });

  it('--offline does not contact GitHub even with a token', async () => {
    const r = await cli(['42', '--offline']);
    assert.equal(r.code, 0);
    assert.equal(gh.requests.length, 0);
    assert.match(r.out, /on-disk/);
  });

  const faults: [string, () => void, RegExp][] = [
    ['401', () => gh.faults.push({ path: /./, fault: { kind: 'status', status: 401 } }), /401.*sign in/i],
    ['403 rate limit', () => gh.faults.push({ path: /./, fault: { kind: 'rate-limit', resetInSeconds: 3600 } }), /rate limit.*resets at \d\d:\d\d:\d\d UTC/],
    ['404', () => gh.faults.push({ path: /\/issues\/42/, fault: { kind: 'status', status: 404 } }), /404.*check the repository/i],
    ['500', () => gh.faults.push({ path: /./, fault: { kind: 'status', status: 500 } }), /500.*after retrying/],
    ['slow response', () => gh.faults.push({ path: /./, fault: { kind: 'slow', delayMs: 3000 } }), /did not answer within/],
  ];
  for (const [name, arm, message] of faults) {
    it(`fault ${name}: a clear message, the disk results, exit 1, no unhandled rejection`, async () => {
      arm();
      const r = await cli(['42', '--json'], { GH_TOKEN: TOKEN }, { retryAfterBaseMs: 10, timeoutMs: 300, retries: 1 });
      assert.equal(r.code, 1);
      const issue = r.json!.issues[0];
      assert.match(issue.error ?? '', message);
      assert.match(r.err, message);
      assert.equal(issue.artifacts[0].status, 'on-disk', 'falls back to the files on disk');
    });
  }

  it('a secondary rate limit is retried after retry-after', async () => {
    gh.faults.push({ path: /\/issues\/42$/, fault: { kind: 'secondary', retryAfterSeconds: 1 }, times: 1 });
    const r = await cli(['42', '--json'], { GH_TOKEN: TOKEN }, { retryAfterBaseMs: 1000 });
    assert.equal(r.code, 0, r.err);
    const issueGets = gh.requests.filter((q) => /\/issues\/42$/.test(q.url));
    assert.deepEqual(issueGets.map((q) => q.status), [403, 200]);
    assert.ok(issueGets[1].at - issueGets[0].at >= 950, `waited ${issueGets[1].at - issueGets[0].at} ms`);
  });

  it('lists open issues matching the issue filter (labels), pull requests left out', async () => {
    gh.addIssue(44, 'Unlabelled');
    const client = new GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow' });
    assert.deepEqual((await client.listIssues({ labels: 'ralph' })).map((i) => i.number), [42]);
    assert.deepEqual((await client.listIssues({})).map((i) => i.number), [42, 43, 44]);
  });

  it('rejects bad arguments with usage', async () => {
    assert.equal((await cli(['forty-two'])).code, 1);
    assert.equal((await cli([])).code, 1);
  });
});

describe('the plan for the prompt, read from disk', () => {
  it('takes the first 100 lines of the plan and says when there is more', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-plan-'));
    try {
      const plan = 'thoughts/shared/plans/2026-11-16-GH-0042-p.md';
      mkdirSync(path.join(dir, 'thoughts/shared/plans'), { recursive: true });
      writeFileSync(path.join(dir, plan), Array.from({ length: 150 }, (_, i) => `line ${i + 1}`).join('\n'));
      const issue = issueArtifacts({ number: 42, disk: [{ kind: 'plan', path: plan }], isLocalFile: () => true });
      const input = await readIssuePlan(dir, [issue]);
      assert.equal(input?.planPath, plan);
      assert.equal(input?.planHead.trimEnd().split('\n').length, 100);
      assert.equal(input?.planTruncated, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
