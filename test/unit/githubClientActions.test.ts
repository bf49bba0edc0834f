/**
 * The client's Actions surface (issue 20's contract) against the GitHub test server: a dispatch
 * recorded with its ref and inputs, runs read back by their story title, a workflow's state,
 * the 404 and 422 said so a person knows what to do, pull requests, assignees.
 */
import * as assert from 'node:assert/strict';
import { GitHubClient, GitHubError } from '../../src/node/github/client';
import { GitHubEmulator } from '../support/githubEmulator';
import { recordUnhandledRejections } from '../support/unhandled';

const TOKEN = 'ghp_emulatorTestToken0123456789';

async function failure(p: Promise<unknown>): Promise<GitHubError> {
  const e = await p.then(
    () => assert.fail('resolved; expected a GitHubError'),
    (err: unknown) => err,
  );
  assert.ok(e instanceof GitHubError, String(e));
  return e;
}

describe('GitHub client: Actions, pull requests, assignees (emulator)', function () {
  this.timeout(30_000);
  let gh: GitHubEmulator;
  let c: GitHubClient;
  const unhandled = recordUnhandledRejections();

  beforeEach(async () => {
    gh = await new GitHubEmulator({ token: TOKEN }).start();
    c = new GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow', retryAfterBaseMs: 10, timeoutMs: 5000, writeIntervalMs: 0 });
  });
  afterEach(async () => {
    await gh.stop();
    assert.deepEqual(unhandled, [], 'no unhandled rejection');
  });

  it('dispatchWorkflow is recorded with its ref and inputs; its run is read back queued, titled by the story, then completed with its conclusion', async () => {
    gh.addWorkflow('ralph.yml');
    await c.dispatchWorkflow('ralph.yml', 'feat/tasks', { story: 'S-1', branch: 'feat/tasks' });
    assert.deepEqual(gh.dispatches.map((d) => [d.workflowFile, d.ref, d.inputs]), [['ralph.yml', 'feat/tasks', { story: 'S-1', branch: 'feat/tasks' }]]);
    const [run] = await c.listWorkflowRuns('ralph.yml', { event: 'workflow_dispatch', branch: 'feat/tasks' });
    assert.equal(run.displayTitle, 'ralph: S-1');
    assert.equal(run.status, 'queued');
    assert.equal(run.conclusion, null);
    assert.equal(run.headBranch, 'feat/tasks');
    assert.equal(run.event, 'workflow_dispatch');
    assert.match(run.htmlUrl, /^https:\/\/github\.com\/acme\/taskflow\/actions\/runs\/\d+$/);
    gh.setRunStatus(run.id, 'completed', 'failure');
    const [done] = await c.listWorkflowRuns('ralph.yml');
    assert.deepEqual([done.status, done.conclusion], ['completed', 'failure']);
    assert.deepEqual(await c.listWorkflowRuns('ralph.yml', { status: 'in_progress' }), []);
  });

  it('120 runs are read over two pages, newest first', async () => {
    gh.addWorkflow('ralph.yml');
    for (let k = 1; k <= 120; k++) {
      gh.addRun('ralph.yml', 'feat', { story: `S-${k}` });
    }
    const runs = await c.listWorkflowRuns('ralph.yml');
    assert.equal(runs.length, 120);
    assert.equal(runs[0].displayTitle, 'ralph: S-120');
  });

  it('a workflow not on the default branch: "not-found" naming the file and what to do; a disabled one: getWorkflow says so and a dispatch is refused with how to enable it', async () => {
    const missing = await failure(c.dispatchWorkflow('ralph.yml', 'main', { story: 'S-1' }));
    assert.equal(missing.kind, 'not-found');
    assert.match(missing.message, /ralph\.yml is not on the default branch of acme\/taskflow/);
    assert.equal((await failure(c.listWorkflowRuns('ralph.yml'))).kind, 'not-found');
    gh.addWorkflow('ralph.yml', 'disabled_manually');
    assert.deepEqual(await c.getWorkflow('ralph.yml'), { id: gh.workflows.get('ralph.yml')!.id, state: 'disabled_manually', path: '.github/workflows/ralph.yml' });
    const disabled = await failure(c.dispatchWorkflow('ralph.yml', 'main', { story: 'S-1' }));
    assert.equal(disabled.status, 422);
    assert.match(disabled.message, /ralph\.yml is disabled on acme\/taskflow.*enable it/);
    assert.deepEqual(gh.dispatches, []);
    assert.deepEqual(gh.writes().map((w) => w.status), [404, 422], 'each write sent once');
  });

  it('listPulls filters by state, head (a branch of this repository) and base; merged is merged_at set', async () => {
    const one = gh.openPullRequest({ head: 'feat-S-1', base: 'feat', title: 'feat: S-1 - Add' });
    gh.openPullRequest({ head: 'feat-S-2', base: 'feat', title: 'feat: S-2 - More' });
    gh.openPullRequest({ head: 'other', base: 'main' });
    gh.mergePullRequest(one.number);
    assert.deepEqual(await c.listPulls({ state: 'all', head: 'feat-S-1' }), [
      { number: one.number, title: 'feat: S-1 - Add', state: 'closed', merged: true, headRef: 'feat-S-1', baseRef: 'feat', htmlUrl: `https://github.com/acme/taskflow/pull/${one.number}`, headSha: one.pull?.sha, fromFork: false },
    ]);
    assert.deepEqual((await c.listPulls({ base: 'feat' })).map((p) => [p.headRef, p.merged]), [['feat-S-2', false]]);
    assert.ok(gh.requests.some((q) => q.url.includes('head=acme%3Afeat-S-1')), 'head sent as owner:branch');
  });

  it('listPulls tells a fork’s pull request (head.repo another repository) from a branch of this one, whatever the branch is called', async () => {
    const own = gh.openPullRequest({ head: 'feat-S-1', base: 'feat' });
    const fork = gh.openPullRequest({ head: 'feat-S-1', base: 'feat', headRepo: 'stranger/taskflow' });
    const pulls = new Map((await c.listPulls({ base: 'feat' })).map((p) => [p.number, p]));
    assert.equal(pulls.get(own.number)?.fromFork, false);
    assert.equal(pulls.get(fork.number)?.fromFork, true);
    assert.equal(pulls.get(fork.number)?.headRef, 'feat-S-1');
  });

  it('listCheckRuns reads the checks of a pull request’s head commit', async () => {
    const pr = gh.openPullRequest({ head: 'feat-S-3', base: 'feat' });
    pr.pull!.checks = [{ name: 'test', status: 'completed', conclusion: 'failure' }, { name: 'lint', status: 'in_progress', conclusion: null }];
    const [p] = await c.listPulls({ head: 'feat-S-3' });
    assert.deepEqual(await c.listCheckRuns(p.headSha!), [{ name: 'test', status: 'completed', conclusion: 'failure' }, { name: 'lint', status: 'in_progress', conclusion: null }]);
    assert.deepEqual(await c.listCheckRuns('0'.repeat(40)), [], 'a commit without checks');
  });

  it('addAssignees assigns the issue (for a hosted coding agent)', async () => {
    gh.addIssue(7);
    await c.addAssignees(7, ['Copilot']);
    assert.deepEqual(gh.issues.get(7)!.assignees, ['Copilot']);
    assert.deepEqual(gh.writes()[0].body, { assignees: ['Copilot'] });
  });
});
