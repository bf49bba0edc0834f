/**
 * The client's issue-writing surface (issue 20's contract) against the GitHub test server:
 * every page read, 304s on a second read, create/update round trips, the 422s that resolve and
 * the one that is a conflict, 301/410/404 as error kinds, a token without a permission.
 */
import * as assert from 'node:assert/strict';
import { GitHubClient, GitHubError, type GitHubClientOptions } from '../../src/node/github/client';
import { GitHubEmulator } from '../support/githubEmulator';
import { recordUnhandledRejections } from '../support/unhandled';

const TOKEN = 'ghp_emulatorTestToken0123456789';

async function rejectsWith(p: Promise<unknown>, kind: string, message?: RegExp): Promise<GitHubError> {
  const e = await p.then(
    () => assert.fail(`resolved; expected a GitHubError '${kind}'`),
    (err: unknown) => err,
  );
  assert.ok(e instanceof GitHubError, `a GitHubError, not ${String(e)}`);
  assert.equal(e.kind, kind, e.message);
  if (message) {
    assert.match(e.message, message);
  }
  assert.doesNotMatch(e.message, /undefined|Cannot read|\[object/);
  return e;
}

describe('GitHub client: issues, labels, sub-issues, dependencies (emulator)', function () {
  this.timeout(30_000);
  let gh: GitHubEmulator;
  const unhandled = recordUnhandledRejections();
  const client = (o: Partial<GitHubClientOptions> = {}): GitHubClient =>
    new GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow', retryAfterBaseMs: 10, timeoutMs: 5000, writeIntervalMs: 0, ...o });

  beforeEach(async () => {
    gh = await new GitHubEmulator({ token: TOKEN }).start();
  });
  afterEach(async () => {
    await gh.stop();
    assert.deepEqual(unhandled, [], 'no unhandled rejection');
  });

  it('listIssuesWithLabel reads all 250 of 260 issues over 3 pages of 100 (closed ones too, pull requests dropped); a second read is three 304s', async () => {
    for (let n = 1; n <= 260; n++) {
      gh.addIssue(n, `S-${n}: story`, n <= 250 ? ['ralph'] : [], n % 10 === 0 ? { state: 'closed' } : {});
    }
    gh.openPullRequest({ head: 'feat-S-1' }).labels.push('ralph');
    const c = client();
    const first = await c.listIssuesWithLabel('ralph');
    assert.equal(first.length, 250);
    assert.deepEqual(new Set(first.map((i) => i.number)).size, 250);
    assert.equal(first.filter((i) => i.state === 'closed').length, 25);
    assert.ok(first.every((i) => !i.isPullRequest && i.id !== i.number && i.labels.includes('ralph')));
    const pages = gh.requests.filter((q) => q.url.startsWith('/repos/acme/taskflow/issues?'));
    assert.equal(pages.length, 3);
    assert.ok(pages.every((q) => q.url.includes('per_page=100') && q.url.includes('state=all') && q.url.includes('labels=ralph')), pages.map((q) => q.url).join('\n'));
    const mark = gh.requests.length;
    const second = await c.listIssuesWithLabel('ralph');
    assert.deepEqual(second, first);
    assert.deepEqual(gh.since(mark).map((q) => q.status), [304, 304, 304]);
    assert.equal(c.notModifiedCount, 3);
  });

  it('a full cached page whose cached answer said "last page" still asks for the next page: a 101st issue is found', async () => {
    for (let n = 1; n <= 100; n++) {
      gh.addIssue(n, `S-${n}`, ['ralph']);
    }
    const c = client();
    assert.equal((await c.listIssuesWithLabel('ralph')).length, 100);
    gh.addIssue(101, 'S-101', ['ralph']);
    assert.equal((await c.listIssuesWithLabel('ralph')).length, 101);
  });

  it('getIssueFull maps id, body ("" for null), state, labels, author and repository_url', async () => {
    gh.addIssue(42, 'S-1: Priorities', ['ralph', 'ralph:ready'], { author: { login: 'octo', association: 'MEMBER' } });
    const i = await client().getIssueFull(42);
    assert.deepEqual(i, {
      number: 42,
      id: gh.issues.get(42)!.id,
      title: 'S-1: Priorities',
      body: '',
      state: 'open',
      labels: ['ralph', 'ralph:ready'],
      htmlUrl: 'https://github.com/acme/taskflow/issues/42',
      isPullRequest: false,
      repositoryUrl: 'https://api.github.com/repos/acme/taskflow',
      author: { login: 'octo', association: 'MEMBER' },
    });
  });

  it('getIssue (the artifacts view) then getIssueFull of the same issue: the 304 still gives the id, body and author', async () => {
    gh.addIssue(42, 'S-1: Priorities', ['ralph'], { body: 'text' });
    const c = client();
    await c.getIssue(42);
    const full = await c.getIssueFull(42);
    assert.equal(c.notModifiedCount, 1, 'the second read was a 304');
    assert.equal(full.id, gh.issues.get(42)!.id);
    assert.equal(full.body, 'text');
    assert.deepEqual(full.author, { login: 'ralph-bot', association: 'OWNER' });
  });

  it('getIssueFull: a transferred issue is "moved" with its new location (not followed), a deleted one "gone", a missing one "not-found"', async () => {
    gh.addIssue(4).transferredTo = { owner: 'acme', repo: 'elsewhere', number: 17 };
    gh.addIssue(3).deleted = true;
    const c = client();
    const moved = await rejectsWith(c.getIssueFull(4), 'moved', /#4.*moved|transferred/i);
    assert.equal(moved.location, `${gh.apiUrl}/repos/acme/elsewhere/issues/17`);
    assert.match(moved.message, /acme\/elsewhere/);
    await rejectsWith(c.getIssueFull(3), 'gone', /deleted/i);
    await rejectsWith(c.getIssueFull(99), 'not-found', /404/);
    assert.deepEqual(gh.requests.map((q) => q.status), [301, 410, 404], 'one request each: no redirect followed, nothing retried');
  });

  it('createIssue then updateIssue round trip: labels that did not exist are created; close as not planned, reopen', async () => {
    const c = client();
    const created = await c.createIssue({ title: 'S-1: Add priorities', body: '<!-- ralph-workbench:story S-1 -->\n- [ ] works', labels: ['ralph', 'ralph:ready'] });
    assert.equal(created.number, 1);
    assert.equal(created.body, '<!-- ralph-workbench:story S-1 -->\n- [ ] works');
    assert.deepEqual(created.labels, ['ralph', 'ralph:ready']);
    const closed = await c.updateIssue(1, { title: 'S-1: Add task priorities', state: 'closed', stateReason: 'not_planned', labels: ['ralph', 'ralph:done'] });
    assert.equal(closed.state, 'closed');
    assert.equal(gh.issues.get(1)!.stateReason, 'not_planned');
    assert.deepEqual(await c.getIssueFull(1), closed);
    const reopened = await c.updateIssue(1, { state: 'open', body: '' });
    assert.equal(reopened.state, 'open');
    assert.equal(reopened.body, '');
    assert.deepEqual(gh.writes().map((w) => [w.method, w.body]), [
      ['POST', { title: 'S-1: Add priorities', body: '<!-- ralph-workbench:story S-1 -->\n- [ ] works', labels: ['ralph', 'ralph:ready'] }],
      ['PATCH', { title: 'S-1: Add task priorities', state: 'closed', state_reason: 'not_planned', labels: ['ralph', 'ralph:done'] }],
      ['PATCH', { state: 'open', body: '' }],
    ]);
  });

  it('updateIssue of a transferred issue is "moved": nothing written to the repository it moved to', async () => {
    gh.addIssue(4).transferredTo = { owner: 'acme', repo: 'taskflow', number: 5 };
    gh.addIssue(5, 'The new one');
    await rejectsWith(client().updateIssue(4, { title: 'changed' }), 'moved');
    assert.equal(gh.issues.get(5)!.title, 'The new one');
  });

  it('labels: createLabel twice resolves (422 already_exists is not an error); listLabels gives description "" for none', async () => {
    const c = client();
    await c.createLabel({ name: 'ralph:ready', color: '0e8a16', description: 'Ready to run' });
    await c.createLabel({ name: 'ralph:ready', color: '0e8a16', description: 'Ready to run' });
    await c.createLabel({ name: 'ralph', color: 'ededed' });
    assert.deepEqual(await c.listLabels(), [
      { name: 'ralph:ready', color: '0e8a16', description: 'Ready to run' },
      { name: 'ralph', color: 'ededed', description: '' },
    ]);
    assert.deepEqual(gh.writes().map((w) => w.status), [201, 422, 201]);
    await rejectsWith(c.createLabel({ name: 'bad', color: 'not-a-colour' }), 'other', /422/);
  });

  it('sub-issues: add, list, remove; adding a child that has another parent is a "conflict"; adding it again to the same parent resolves', async () => {
    const parent = gh.addIssue(1, 'Feature');
    gh.addIssue(2, 'Other feature');
    const child = gh.addIssue(3, 'S-1');
    const c = client();
    await c.addSubIssue(1, child.id);
    await c.addSubIssue(1, child.id);
    assert.deepEqual((await c.listSubIssues(1)).map((i) => i.number), [3]);
    await rejectsWith(c.addSubIssue(2, child.id), 'conflict', /parent/i);
    await c.removeSubIssue(1, child.id);
    assert.deepEqual(parent.subIssues, []);
    assert.deepEqual(await c.listSubIssues(1), []);
  });

  it('dependencies: add twice resolves, a blocker in another repository is listed with its repository_url, remove twice resolves; without the API listBlockedBy is "not-found"', async () => {
    const a = gh.addIssue(1);
    const b = gh.addIssue(2);
    const foreign = gh.addForeignIssue('acme/other', 9);
    const c = client();
    await c.addBlockedBy(2, a.id);
    await c.addBlockedBy(2, a.id);
    await c.addBlockedBy(2, foreign.id);
    const blockers = await c.listBlockedBy(2);
    assert.deepEqual(blockers.map((i) => [i.number, i.repositoryUrl]), [[1, 'https://api.github.com/repos/acme/taskflow'], [9, 'https://api.github.com/repos/acme/other']]);
    await c.removeBlockedBy(2, a.id);
    await c.removeBlockedBy(2, a.id);
    assert.deepEqual(b.blockedBy, [foreign.id]);
    await rejectsWith(c.addBlockedBy(2, 2), 'conflict');
    gh.dependenciesApi = false;
    await rejectsWith(c.listBlockedBy(2), 'not-found', /dependencies/i);
  });

  it('a token without a permission: the message names it ("the token needs Issues: write")', async () => {
    gh.faults.push({ path: /\/issues$/, method: 'POST', fault: { kind: 'permission', accepted: 'issues=write' } });
    gh.faults.push({ path: /\/pulls$/, fault: { kind: 'permission', accepted: 'pull_requests=read; contents=read, metadata=read' } });
    const c = client();
    await rejectsWith(c.createIssue({ title: 'x', body: '' }), 'forbidden', /the token needs Issues: write/);
    await rejectsWith(c.listPulls({}), 'forbidden', /the token needs Pull requests: read, or Contents: read and Metadata: read/);
  });

  it('an answer without a required field is "bad-answer" naming the request, never a raw JavaScript error', async () => {
    gh.faults.push({ path: /\/issues\/7$/, fault: { kind: 'raw', status: 200, contentType: 'application/json', body: '{"number": 7, "title": "no id"}' } });
    await rejectsWith(client().getIssueFull(7), 'bad-answer', /GET \/repos\/acme\/taskflow\/issues\/7: .*\(id: missing\)/);
  });
});

describe('GitHub client: writes are paced and never sent twice (emulator)', function () {
  this.timeout(30_000);
  let gh: GitHubEmulator;
  const client = (o: Partial<GitHubClientOptions> = {}): GitHubClient => new GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow', retryAfterBaseMs: 50, timeoutMs: 5000, ...o });

  beforeEach(async () => {
    gh = await new GitHubEmulator({ token: TOKEN }).start();
  });
  afterEach(() => gh.stop());

  it('writes started at once go one at a time, writeIntervalMs (50 ms) apart', async () => {
    const c = client({ writeIntervalMs: 50 });
    await Promise.all(Array.from({ length: 6 }, (_, k) => c.createIssue({ title: `S-${k}`, body: '' })));
    const at = gh.writes().map((w) => w.at);
    assert.equal(at.length, 6);
    const gaps = at.slice(1).map((t, k) => t - at[k]);
    assert.ok(gaps.every((g) => g >= 45), `gaps ${gaps.join(', ')} ms`);
    assert.ok(gaps.every((g) => g < 900), `not the old fixed second: ${gaps.join(', ')} ms`);
  });

  it('one at a time: a slow write is answered before the next one is sent', async () => {
    gh.faults.push({ path: /\/issues$/, method: 'POST', fault: { kind: 'slow', delayMs: 150 }, times: 2 });
    const c = client({ writeIntervalMs: 10 });
    await Promise.all([c.createIssue({ title: 'a', body: '' }), c.createIssue({ title: 'b', body: '' }), c.createIssue({ title: 'c', body: '' })]);
    const at = gh.writes().map((w) => w.at);
    assert.ok(at[1] - at[0] >= 140 && at[2] - at[1] >= 140, `arrivals ${at.map((t) => t - at[0]).join(', ')} ms`);
  });

  it('a secondary rate limit on a POST is waited out (retry-after) and the issue is created once', async () => {
    gh.faults.push({ path: /\/issues$/, method: 'POST', fault: { kind: 'secondary', retryAfterSeconds: 2 }, times: 1 });
    const logs: string[] = [];
    const created = await client({ writeIntervalMs: 0, log: (m) => logs.push(m) }).createIssue({ title: 'S-1', body: '' });
    assert.equal(created.number, 1);
    assert.equal(gh.issues.size, 1);
    const posts = gh.writes();
    assert.deepEqual(posts.map((w) => w.status), [403, 201]);
    assert.ok(posts[1].at - posts[0].at >= 95, `waited ${posts[1].at - posts[0].at} ms (2 × 50)`);
    assert.ok(logs.some((l) => /secondary rate limit/.test(l)));
  });

  it('a POST that lands and then answers 502 is not sent again: one issue, an error saying so', async () => {
    gh.faults.push({ path: /\/issues$/, method: 'POST', fault: { kind: 'lands-then', then: 502 }, times: 1 });
    await rejectsWith(client({ writeIntervalMs: 0 }).createIssue({ title: 'S-1', body: '' }), 'server');
    assert.equal(gh.issues.size, 1);
    assert.equal(gh.writes().length, 1);
  });

  it('writeIntervalMs defaults to 1000', async () => {
    const c = client();
    await c.createLabel({ name: 'a', color: 'ededed' });
    await c.createLabel({ name: 'b', color: 'ededed' });
    const [x, y] = gh.writes();
    assert.ok(y.at - x.at >= 950, `${y.at - x.at} ms`);
  });
});
