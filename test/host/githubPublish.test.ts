/**
 * GitHub as the engine in the real extension host (issue 20), against the project's GitHub test
 * server as the stand-in (ralph.github.standInUrl): Publish Stories to GitHub… (the dry run's
 * question says what it will do; Publish creates the issues, links the hand-written ones, writes
 * each story's issue number into prd.json; a second publish asks nothing and writes nothing;
 * Cancel writes nothing), then following the published stories — a run in progress and a pull
 * request open show in the Stories view and the Task Graph — and Sync, which offers the stories
 * that pass on GitHub's feature branch and marks them passing only when asked.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RalphApi } from '../../src/api';
import { storyIdOfBody } from '../../src/core/github/storyIssue';
import { type RunRecord, serializeRun } from '../../src/core/runs/runs';
import type { GraphMessage } from '../../src/core/webview/graphProtocol';
import { GitHubEmulator } from '../support/githubEmulator';
import { answering, api, readPrd, snapshot, useStandIn, waitFor, waitForGraph, workspaceFolder } from './helpers';
import { ensureGitWorkspace, git, GIT_IDENTITY, type Pristine, restoreWorkspace, ws } from './runHelpers';

interface Outcome {
  readonly message: string;
}

const FEATURE = 'ralph/task-priority';

suite('GitHub as the engine: publish, follow, sync (test server)', function () {
  this.timeout(120_000);
  let gh: GitHubEmulator;
  let ralph: RalphApi;
  let pristine: Pristine;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('ralph.github', workspaceFolder().uri);

  suiteSetup(async () => {
    ralph = await api();
    pristine = ensureGitWorkspace();
    await config().update('repository', 'acme/taskflow', vscode.ConfigurationTarget.Workspace);
    await config().update('writeIntervalMs', 0, vscode.ConfigurationTarget.Workspace);
  });

  setup(async () => {
    gh = await new GitHubEmulator({ owner: 'acme', repo: 'taskflow' }).start();
    // The demo's stories name #42 and #43: the team's own issues, written by hand.
    gh.addIssue(42, 'Bulk priority change, as the team wrote it', ['enhancement'], { body: 'Written by a person.' });
    gh.addIssue(43, 'Notify assignees');
    await useStandIn(gh.apiUrl);
    await ralph.refreshIssues();
  });

  teardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    try {
      git('remote', 'remove', 'origin');
    } catch {
      // no origin in this test
    }
    await restoreWorkspace(pristine);
    await useStandIn(undefined);
    await ralph.refreshIssues();
    await gh.stop();
  });

  suiteTeardown(async () => {
    await config().update('repository', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('writeIntervalMs', undefined, vscode.ConfigurationTarget.Workspace);
  });

  const storyIssues = (): Map<string, number> => new Map([...gh.issues.values()].flatMap((i) => (i.body && storyIdOfBody(i.body) !== undefined ? [[storyIdOfBody(i.body) as string, i.number] as const] : [])));

  test('Cancel at the dry run writes nothing; Publish creates the issues, links the hand-written ones and writes the issue numbers into prd.json; again: nothing to do', async () => {
    const before = await readPrd();
    const cancelled = await answering(undefined, () => vscode.commands.executeCommand<Outcome>('ralph.github.publishStories'));
    assert.equal(cancelled.result.message, 'Not published.');
    assert.equal(cancelled.questions.length, 1);
    assert.match(cancelled.questions[0].message, /^Publish the stories of .+ to acme\/taskflow\?$/);
    assert.match(cancelled.questions[0].detail ?? '', /^10 new issues, \d+ other writes .*: \d+ writes in all, one every 0 s as GitHub asks\./);
    assert.equal(gh.writes().length, 0, 'the dry run writes nothing to GitHub');
    assert.equal(await readPrd(), before, 'nor to prd.json');

    const done = await answering('Publish', () => vscode.commands.executeCommand<Outcome>('ralph.github.publishStories'));
    assert.match(done.result.message, /^Published: 10 issues created, \d+ writes to acme\/taskflow; prd\.json names each story's issue\.$/);
    const mine = storyIssues();
    assert.equal(mine.size, 10, 'one issue per story without one; the two hand-written ones linked, not copied');
    assert.equal(gh.issues.get(42)?.title, 'Bulk priority change, as the team wrote it', 'a hand-written issue keeps its title');
    assert.ok(gh.issues.get(42)?.labels.includes('ralph'));
    const prd = JSON.parse(await readPrd()) as { userStories: { id: string; issue?: number }[] };
    for (const s of prd.userStories) {
      assert.ok(typeof s.issue === 'number', `${s.id} names its issue in prd.json`);
      assert.ok(mine.get(s.id) === s.issue || s.issue === 42 || s.issue === 43, `${s.id}: ${s.issue}`);
    }

    const from = gh.requests.length;
    const again = await answering('Publish', () => vscode.commands.executeCommand<Outcome>('ralph.github.publishStories'));
    assert.deepEqual(again.questions, [], 'nothing to publish: nothing asked');
    assert.match(again.result.message, /^The issues of acme\/taskflow already say what prd\.json says: nothing to publish\./);
    assert.equal(gh.writes(from).length, 0);
  });

  test('a story that fails twice with the same signature: the offer\'s third button, Open GitHub Issue, opens an issue with the signature\'s label; again, it comments on that issue instead (issue 21)', async () => {
    // What the recorder writes after two failed iterations with the same signature (an agent's words: mentions and fences in them).
    const signature = `Error: @octocat's check <n> failed in ${Date.now()}`;
    const failed = (n: number): RunRecord => ({
      start: `2026-11-26T10:0${n}:00.000Z`, end: `2026-11-26T10:0${n}:30.000Z`, storyId: 'US-006', storyTitle: 'Sort tasks by priority', agent: 'custom',
      exitCode: 1, durationMs: 30_000, passingBefore: 4, passingAfter: 4, storyPasses: false, commit: null, complete: false, outcome: 'failed',
      promptFile: `.ralph/prompts/p${n}.md`, iteration: n, loopId: 'loop-sig', signature, errorLines: ['Error: @octocat\'s check 3 failed', '```', 'see #12'],
    });
    const offers: { message: string; choices: readonly string[] }[] = [];
    ralph.answerConfirmations((q) => {
      if (!/failed twice in a row/.test(q.message)) {
        return undefined;
      }
      offers.push(q);
      return 'Open GitHub Issue';
    });
    try {
      fs.mkdirSync(ws('.ralph'), { recursive: true });
      fs.writeFileSync(ws('.ralph', 'runs.jsonl'), [failed(1), failed(2)].map(serializeRun).join(''));
      const issue = await waitFor('the signature\'s issue on GitHub', () => [...gh.issues.values()].find((i) => i.labels.some((l) => /^ralph-signature:[0-9a-f]{10}$/.test(l))), 30_000, () => offers);
      assert.deepEqual(offers.map((o) => o.choices), [['Add as Learning', 'Add Note to AGENTS.md', 'Open GitHub Issue']]);
      assert.match(issue.title, /^Ralph: US-006 fails with: Error: @\u200boctocat's check <n> failed in \d+$/);
      assert.match(issue.body ?? '', /^Story `US-006` failed 2 times in a row/);
      assert.ok((issue.body ?? '').includes("````\nError: @octocat's check 3 failed\n```\nsee #12\n````"), issue.body ?? '');

      const again = await vscode.commands.executeCommand<{ kind: string; number: number }>('ralph.github.openSignatureIssue', workspaceFolder().uri, 'US-006');
      assert.deepEqual([again.kind, again.number], ['commented', issue.number]);
      assert.equal([...gh.issues.values()].filter((i) => i.labels.some((l) => l.startsWith('ralph-signature:'))).length, 1, 'no second issue');
      assert.match(issue.comments[0]?.body ?? '', /^Failed again: `US-006`, 2 times in a row/);
    } finally {
      ralph.answerConfirmations(undefined);
    }
  });

  test('Dispatch Ready Stories: unpublished, it offers to publish first; published, it runs the ready stories on Actions up to ralph.parallel.maxAgents, never one twice', async () => {
    gh.addWorkflow('ralph.yml');
    // The demo's stories all match the Pin's priority modules: the same-file guard would send one at a time.
    const parallel = vscode.workspace.getConfiguration('ralph.parallel', workspaceFolder().uri);
    await parallel.update('allowOverlap', true, vscode.ConfigurationTarget.Workspace);
    try {
    // The demo's US-008 names #43 already; the other ready stories are not published.
    const first = await answering(undefined, () => vscode.commands.executeCommand<{ message: string; publishFirst?: boolean }>('ralph.github.dispatch'));
    assert.equal(first.result.message, 'Not dispatched.');
    assert.match(first.questions[0].message, /^\d ready stories are not published yet \((US-\d+, )*US-\d+\): publish first\?$/);
    assert.deepEqual(first.questions[0].choices, ['Publish Stories…', 'Dispatch US-008']);
    assert.equal(gh.dispatches.length, 0);

    await answering('Publish', () => vscode.commands.executeCommand<Outcome>('ralph.github.publishStories'));
    const sent = await answering('Dispatch', () => vscode.commands.executeCommand<{ message: string }>('ralph.github.dispatch'));
    assert.match(sent.questions[0].message, /^Run US-\d+, US-\d+, US-\d+ on GitHub Actions \(acme\/taskflow\)\?$/);
    assert.equal(gh.dispatches.length, 3, 'ralph.parallel.maxAgents (3) at once');
    assert.ok(gh.dispatches.every((d) => d.ref === FEATURE && d.inputs.branch === FEATURE), JSON.stringify(gh.dispatches));
    const again = await answering('Dispatch', () => vscode.commands.executeCommand<{ message: string }>('ralph.github.dispatch'));
    assert.match(again.result.message, /^Nothing to dispatch: /);
    assert.equal(gh.dispatches.length, 3, 'the stories in flight are not dispatched again');
    } finally {
      await parallel.update('allowOverlap', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('a published story’s run and pull request show in the Stories view and the Task Graph; Sync offers what passes on GitHub and marks it only when asked', async () => {
    // GitHub's side: an origin whose feature branch has US-006 passing (its pull request merged there).
    const origin = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-origin-'));
    try {
      execFileSync('git', ['init', '-q', '--bare', origin]);
      git('remote', 'add', 'origin', origin);
      const remoteTree = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-remote-tree-'));
      git('worktree', 'add', '-q', '--detach', remoteTree);
      const text = fs.readFileSync(path.join(remoteTree, 'prd.json'), 'utf8');
      const remotePrd = JSON.parse(text) as { userStories: { id: string; passes: boolean }[] };
      remotePrd.userStories.find((s) => s.id === 'US-006')!.passes = true;
      fs.writeFileSync(path.join(remoteTree, 'prd.json'), `${JSON.stringify(remotePrd, null, 2)}\n`);
      execFileSync('git', [...GIT_IDENTITY, 'commit', '-qam', 'feat: US-006 - merged on GitHub'], { cwd: remoteTree });
      execFileSync('git', ['push', '-q', 'origin', `HEAD:refs/heads/${FEATURE}`], { cwd: remoteTree });
      git('worktree', 'remove', '--force', remoteTree);

      await answering('Publish', () => vscode.commands.executeCommand<Outcome>('ralph.github.publishStories'));
      gh.addWorkflow('ralph.yml');
      const run = gh.addRun('ralph.yml', FEATURE, { story: 'US-005', branch: FEATURE });
      gh.setRunStatus(run.id, 'in_progress');
      const pr = gh.openPullRequest({ head: `${FEATURE}-US-008`, base: FEATURE, title: 'feat: US-008 - Notify assignees' });
      pr.pull!.checks = [{ name: 'test', status: 'completed', conclusion: 'failure' }];

      const asked = await answering('Mark Passing Here', () => vscode.commands.executeCommand<{ passedRemotely: string[]; conflicts: string[] }>('ralph.github.sync'));
      assert.deepEqual(asked.result.passedRemotely, ['US-006']);
      assert.deepEqual(asked.result.conflicts, []);
      assert.equal(asked.questions.length, 1);
      assert.match(asked.questions[0].message, /^1 story passes on GitHub's feature branch and not here: US-006\.$/);
      await waitFor('US-006 to pass in prd.json', async () => (JSON.parse(await readPrd()) as { userStories: { id: string; passes: boolean }[] }).userStories.find((s) => s.id === 'US-006')?.passes === true);

      const rows = await waitFor('the Stories view to show the run and the pull request', async () => {
        const nodes = await snapshot();
        const row = (id: string): string => nodes.find((n) => n.label.startsWith(`${id} ·`))?.description ?? '';
        return row('US-005').startsWith('☁ run in progress · ') && row('US-008').startsWith(`☁ PR #${pr.number} open, checks failing · `) ? nodes : undefined;
      }, 20_000, async () => [...(await snapshot()).map((n) => `${n.label} — ${n.description}`), ...gh.requests.filter((q) => /actions|pulls/.test(q.url)).map((q) => `${q.method} ${q.status} ${q.url}`)]);
      assert.ok(rows.length >= 12);
      const g = await waitForGraph('the Task Graph’s badges to show the remote states', (m: GraphMessage) => m.nodes.find((n) => n.id === 'US-005')?.artifacts?.remote?.kind === 'running' && m.nodes.find((n) => n.id === 'US-008')?.artifacts?.remote?.label === `PR #${pr.number} open, checks failing`);
      assert.ok(g.nodes.find((n) => n.id === 'US-005')?.artifacts?.issue);

      // Declined: nothing is marked. A story passing here and not there is said, and left.
      git('checkout', '-q', '--', 'prd.json');
      const declined = await answering(undefined, () => vscode.commands.executeCommand<{ passedRemotely: string[] }>('ralph.github.sync'));
      assert.deepEqual(declined.result.passedRemotely, ['US-006']);
      assert.equal((JSON.parse(await readPrd()) as { userStories: { id: string; passes: boolean }[] }).userStories.find((s) => s.id === 'US-006')?.passes, false);
    } finally {
      fs.rmSync(origin, { recursive: true, force: true });
    }
  });
});

