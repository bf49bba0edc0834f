/**
 * The GitHub test server's routes where a mistake would mislead every test built on it: paging
 * and Link headers, ETag / 304, the documented 422s, 301 and 410, dispatches and the runs they
 * make. Plain fetch on 127.0.0.1, no client in between.
 */
import * as assert from 'node:assert/strict';
import { GitHubEmulator } from '../support/githubEmulator';

describe('the GitHub test server (emulator routes)', function () {
  this.timeout(20_000);
  let gh: GitHubEmulator;
  const base = (): string => `${gh.apiUrl}/repos/acme/taskflow`;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown; headers: Headers }> => {
    const res = await fetch(`${base()}${path}`, { method, redirect: 'manual', headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined, headers: res.headers };
  };

  beforeEach(async () => {
    gh = await new GitHubEmulator().start();
  });
  afterEach(() => gh.stop());

  it('lists 250 labelled issues over three pages of 100 with Link headers that keep the filters; a page read again is 304', async () => {
    for (let n = 1; n <= 260; n++) {
      gh.addIssue(n, `Story ${n}`, n <= 250 ? ['ralph'] : []);
    }
    gh.issues.get(7)!.state = 'closed';
    const numbers: number[] = [];
    let url: string | undefined = `${base()}/issues?labels=ralph&state=all&per_page=100`;
    const etags: string[] = [];
    while (url) {
      const res: Response = await fetch(url);
      assert.equal(res.status, 200);
      etags.push(res.headers.get('etag')!);
      numbers.push(...((await res.json()) as { number: number }[]).map((i) => i.number));
      url = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
      assert.ok(!url || (url.includes('labels=ralph') && url.includes('state=all')), url);
    }
    assert.equal(numbers.length, 250);
    assert.ok(numbers.includes(7), 'state=all includes a closed issue');
    assert.equal((await call('GET', '/issues?labels=ralph&per_page=100&page=3')).json instanceof Array, true);
    const open = (await call('GET', '/issues?labels=ralph&per_page=100&page=3')).json as unknown[];
    assert.equal(open.length, 49, 'state defaults to open: the closed #7 is left out');
    const again = await call('GET', '/issues?labels=ralph&state=all&per_page=100', undefined, { 'if-none-match': etags[0] });
    assert.equal(again.status, 304);
  });

  it('an issue answers id (not its number), node_id, body null, user, author_association, repository_url, state_reason', async () => {
    gh.addIssue(42, 'Task priorities');
    const i = (await call('GET', '/issues/42')).json as Record<string, unknown>;
    assert.notEqual(i.id, 42);
    assert.equal(typeof i.id, 'number');
    assert.equal(typeof i.node_id, 'string');
    assert.equal(i.body, null);
    assert.deepEqual(i.user, { login: 'ralph-bot', id: 1, type: 'User' });
    assert.equal(i.author_association, 'OWNER');
    assert.equal(i.repository_url, 'https://api.github.com/repos/acme/taskflow');
    assert.equal(i.state_reason, null);
  });

  it('creates an issue with a label that does not exist yet (GitHub creates it), updates and closes it; a label created twice is 422 already_exists', async () => {
    gh.addIssue(5);
    const created = await call('POST', '/issues', { title: 'S-1: Add priorities', body: 'text', labels: ['ralph', 'ralph:ready'] });
    assert.equal(created.status, 201);
    const c = created.json as { number: number; labels: { name: string }[] };
    assert.equal(c.number, 6);
    assert.deepEqual(c.labels.map((l) => l.name), ['ralph', 'ralph:ready']);
    assert.ok(gh.labels.has('ralph:ready'));
    const closed = (await call('PATCH', '/issues/6', { state: 'closed', state_reason: 'not_planned', labels: ['ralph', 'ralph:done'] })).json as Record<string, unknown>;
    assert.equal(closed.state, 'closed');
    assert.equal(closed.state_reason, 'not_planned');
    assert.equal(((await call('PATCH', '/issues/6', { state: 'open' })).json as Record<string, unknown>).state_reason, 'reopened');
    assert.equal((await call('POST', '/labels', { name: 'Ralph', color: 'ff0000' })).status, 422);
    const dup = (await call('POST', '/labels', { name: 'Ralph', color: 'ff0000' })).json as { errors: { code: string }[] };
    assert.equal(dup.errors[0].code, 'already_exists');
    assert.equal((await call('POST', '/labels', { name: 'new', color: '00ff00', description: 'd' })).status, 201);
    assert.deepEqual(gh.writes().map((w) => w.status), [201, 200, 200, 422, 422, 201]);
    assert.deepEqual(gh.writes()[0].body, { title: 'S-1: Add priorities', body: 'text', labels: ['ralph', 'ralph:ready'] });
  });

  it('sub-issues: 422 when the child already has a parent and beyond 100 per parent; remove; parent', async () => {
    const parent = gh.addIssue(1);
    const other = gh.addIssue(2);
    for (let n = 10; n <= 110; n++) {
      gh.addIssue(n);
    }
    assert.equal((await call('POST', '/issues/1/sub_issues', { sub_issue_id: gh.issues.get(10)!.id })).status, 201);
    assert.equal((await call('POST', '/issues/2/sub_issues', { sub_issue_id: gh.issues.get(10)!.id })).status, 422, 'a child has one parent');
    assert.equal((await call('GET', '/issues/10/parent')).json && ((await call('GET', '/issues/10/parent')).json as { number: number }).number, 1);
    for (let n = 11; n <= 109; n++) {
      assert.equal((await call('POST', '/issues/1/sub_issues', { sub_issue_id: gh.issues.get(n)!.id })).status, 201);
    }
    assert.equal(parent.subIssues.length, 100);
    assert.equal((await call('POST', '/issues/1/sub_issues', { sub_issue_id: gh.issues.get(110)!.id })).status, 422, '101st');
    assert.equal((await call('DELETE', '/issues/1/sub_issue', { sub_issue_id: gh.issues.get(10)!.id })).status, 200);
    assert.equal((await call('POST', '/issues/2/sub_issues', { sub_issue_id: gh.issues.get(10)!.id })).status, 201);
    assert.deepEqual(other.subIssues, [10]);
    assert.equal((await call('GET', '/issues/1/sub_issues?per_page=100')).headers.get('link'), null);
    assert.equal(((await call('GET', '/issues/1/sub_issues?per_page=100')).json as unknown[]).length, 99);
    assert.equal((await call('GET', '/issues/3/parent')).status, 404);
  });

  it('dependencies: blocked_by by issue id (another repository allowed), 422 when it exists, DELETE, blocking; 404 everywhere when switched off', async () => {
    const a = gh.addIssue(1);
    const b = gh.addIssue(2);
    const foreign = gh.addForeignIssue('acme/other', 9);
    assert.equal((await call('POST', '/issues/2/dependencies/blocked_by', { issue_id: a.id })).status, 201);
    assert.equal((await call('POST', '/issues/2/dependencies/blocked_by', { issue_id: a.id })).status, 422);
    assert.equal((await call('POST', '/issues/2/dependencies/blocked_by', { issue_id: foreign.id })).status, 201);
    const list = (await call('GET', '/issues/2/dependencies/blocked_by')).json as { number: number; repository_url: string }[];
    assert.deepEqual(list.map((i) => [i.number, i.repository_url]), [[1, 'https://api.github.com/repos/acme/taskflow'], [9, 'https://api.github.com/repos/acme/other']]);
    assert.deepEqual(((await call('GET', '/issues/1/dependencies/blocking')).json as { number: number }[]).map((i) => i.number), [2]);
    assert.equal((await call('DELETE', `/issues/2/dependencies/blocked_by/${a.id}`)).status, 200);
    assert.equal((await call('DELETE', `/issues/2/dependencies/blocked_by/${a.id}`)).status, 404);
    assert.deepEqual(b.blockedBy, [foreign.id]);
    gh.dependenciesApi = false;
    assert.equal((await call('GET', '/issues/2/dependencies/blocked_by')).status, 404);
    assert.equal((await call('POST', '/issues/2/dependencies/blocked_by', { issue_id: a.id })).status, 404);
  });

  it('a deleted issue answers 410; a transferred one 301 with a Location to the new repository (not followed)', async () => {
    gh.addIssue(3).deleted = true;
    gh.addIssue(4).transferredTo = { owner: 'acme', repo: 'elsewhere', number: 17 };
    assert.equal((await call('GET', '/issues/3')).status, 410);
    assert.equal((await call('PATCH', '/issues/3', { title: 'x' })).status, 410);
    const moved = await call('GET', '/issues/4');
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.get('location'), `${gh.apiUrl}/repos/acme/elsewhere/issues/17`);
  });

  it('a dispatch makes a queued run titled "ralph: <story>"; 404 for an unknown workflow, 422 when disabled; runs in flight are counted', async () => {
    gh.addWorkflow('ralph.yml');
    gh.addWorkflow('off.yml', 'disabled_manually');
    assert.equal((await call('POST', '/actions/workflows/ralph.yml/dispatches', { ref: 'feat', inputs: { story: 'S-1', branch: 'feat' } })).status, 204);
    assert.equal((await call('POST', '/actions/workflows/ralph.yml/dispatches', { ref: 'feat', inputs: { story: 'S-2', branch: 'feat' } })).status, 204);
    assert.equal((await call('POST', '/actions/workflows/nope.yml/dispatches', { ref: 'feat' })).status, 404);
    assert.equal((await call('POST', '/actions/workflows/off.yml/dispatches', { ref: 'feat' })).status, 422);
    assert.equal(((await call('GET', '/actions/workflows/off.yml')).json as { state: string }).state, 'disabled_manually');
    const runs = (await call('GET', '/actions/workflows/ralph.yml/runs?event=workflow_dispatch')).json as { total_count: number; workflow_runs: { id: number; display_title: string; status: string }[] };
    assert.equal(runs.total_count, 2);
    assert.deepEqual(runs.workflow_runs.map((r) => [r.display_title, r.status]), [['ralph: S-2', 'queued'], ['ralph: S-1', 'queued']]);
    gh.setRunStatus(runs.workflow_runs[1].id, 'completed', 'failure');
    assert.deepEqual(((await call('GET', '/actions/workflows/ralph.yml/runs?status=failure')).json as { workflow_runs: unknown[] }).workflow_runs.length, 1);
    assert.equal((await call('POST', '/actions/workflows/ralph.yml/dispatches', { ref: 'feat', inputs: { story: 'S-3' } })).status, 204);
    assert.deepEqual(gh.dispatches.map((d) => d.inFlight), [1, 2, 2]);
    assert.equal(gh.maxRunsInFlight, 2);
  });

  it('pull requests: listed by state, head (owner:branch) and base; merged ones are closed with merged_at; they are issues too', async () => {
    gh.addIssue(1);
    const pr = gh.openPullRequest({ head: 'feat-S-1', base: 'feat', title: 'feat: S-1 - Add' });
    gh.openPullRequest({ head: 'feat-S-2', base: 'feat' });
    gh.mergePullRequest(pr.number);
    const closed = (await call('GET', '/pulls?state=closed&head=acme:feat-S-1&base=feat')).json as { number: number; merged_at: string | null; head: { ref: string } }[];
    assert.deepEqual(closed.map((p) => [p.number, p.head.ref, p.merged_at !== null]), [[2, 'feat-S-1', true]]);
    assert.equal(((await call('GET', '/pulls')).json as unknown[]).length, 1);
    const asIssues = (await call('GET', '/issues?state=all')).json as { number: number; pull_request?: unknown }[];
    assert.deepEqual(asIssues.filter((i) => i.pull_request).map((i) => i.number), [2, 3]);
  });

  it('a permission fault answers 403 with x-accepted-github-permissions; a secondary limit applies to POSTs too', async () => {
    gh.faults.push({ path: /\/issues$/, method: 'POST', fault: { kind: 'permission', accepted: 'issues=write' }, times: 1 });
    gh.faults.push({ path: /\/issues$/, method: 'POST', fault: { kind: 'secondary', retryAfterSeconds: 1 }, times: 1 });
    const denied = await call('POST', '/issues', { title: 'x' });
    assert.equal(denied.status, 403);
    assert.equal(denied.headers.get('x-accepted-github-permissions'), 'issues=write');
    const limited = await call('POST', '/issues', { title: 'x' });
    assert.equal(limited.status, 403);
    assert.equal(limited.headers.get('retry-after'), '1');
    assert.equal(gh.issues.size, 0, 'neither created an issue');
    assert.equal((await call('POST', '/issues', { title: 'x' })).status, 201);
  });
});
