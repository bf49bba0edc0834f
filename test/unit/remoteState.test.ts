/**
 * Where each published story stands on GitHub (issue 20, "Follow from VS Code"), the pure part:
 * its latest `ralph: <id>` run, its pull request from `<feature>-<id>`, its issue; what is in
 * flight (keep polling); and Sync's comparison of `passes` here and on the feature branch there.
 */
import assert from 'node:assert/strict';
import { checksState, comparePasses, publishedIssues, remoteStates, type PullSeen, type RunSeen } from '../../src/core/github/remoteState';

const run = (id: number, story: string, status: string, conclusion: string | null = null, createdAt = `2026-11-26T07:0${id % 10}:00Z`): RunSeen => ({ id, displayTitle: `ralph: ${story}`, status, conclusion, htmlUrl: `https://github.com/acme/t/actions/runs/${id}`, createdAt });
const pull = (number: number, story: string, state: 'open' | 'closed', merged = false): PullSeen => ({ number, state, merged, headRef: `ralph/tasks-${story}`, htmlUrl: `https://github.com/acme/t/pull/${number}` });

describe('the remote state of published stories', () => {
  const issueOf = new Map([['A', 1], ['B', 2], ['C', 3], ['D', 4], ['E', 5], ['F', 6]]);
  const issues = new Map([1, 2, 3, 4, 5, 6].map((n) => [n, { state: (n === 6 ? 'closed' : 'open') as 'open' | 'closed', htmlUrl: `https://github.com/acme/t/issues/${n}` }] as const));

  it('the pull request first (merged, open), then the newest run (in progress, queued, failed), then the issue', () => {
    const states = remoteStates({
      feature: 'ralph/tasks',
      issueOf,
      issues,
      runs: [run(1, 'A', 'completed', 'success'), run(2, 'B', 'in_progress'), run(3, 'C', 'queued'), run(4, 'D', 'completed', 'failure'), run(5, 'D', 'completed', 'success', '2026-11-26T06:00:00Z'), run(6, 'not ours', 'in_progress'), { ...run(7, 'E', 'in_progress'), displayTitle: 'deploy' }],
      pulls: [pull(10, 'A', 'closed', true), pull(11, 'B', 'open'), pull(12, 'Z', 'open')],
    });
    assert.deepEqual(Object.fromEntries([...states].map(([id, s]) => [id, `${s.kind}: ${s.label}${s.inFlight ? ' (in flight)' : ''}`])), {
      A: 'pull-merged: PR #10 merged',
      B: 'pull-open: PR #11 open (in flight)',
      C: 'queued: run queued (in flight)',
      D: 'run-failed: run failure',
      E: 'issue-open: #5 open',
      F: 'issue-closed: #6 closed',
    });
    assert.equal(states.get('D')?.url, 'https://github.com/acme/t/actions/runs/4', 'the failed run links to its logs');
  });

  it('a run someone else started or a fork’s pull request named like a story branch says nothing about the story', () => {
    const states = remoteStates({
      feature: 'ralph/tasks',
      issueOf,
      issues,
      runs: [{ ...run(1, 'A', 'in_progress'), event: 'pull_request' }, { ...run(2, 'B', 'completed', 'success'), event: 'workflow_dispatch' }],
      pulls: [{ ...pull(10, 'A', 'open'), fromFork: true }, { ...pull(11, 'B', 'closed', true), fromFork: true }],
    });
    assert.equal(states.get('A')?.kind, 'issue-open');
    assert.equal(states.get('B')?.kind, 'run-passed');
  });

  it('an open pull request says its checks: any failure fails, any unfinished one runs', () => {
    assert.equal(checksState([]), 'none');
    assert.equal(checksState([{ status: 'completed', conclusion: 'success' }, { status: 'completed', conclusion: 'skipped' }]), 'passing');
    assert.equal(checksState([{ status: 'completed', conclusion: 'success' }, { status: 'in_progress', conclusion: null }]), 'running');
    assert.equal(checksState([{ status: 'in_progress', conclusion: null }, { status: 'completed', conclusion: 'failure' }]), 'failing');
    const states = remoteStates({ feature: 'ralph/tasks', issueOf: new Map([['B', 2]]), issues: new Map(), runs: [], pulls: [{ ...pull(11, 'B', 'open'), checks: 'failing' }] });
    assert.equal(states.get('B')?.label, 'PR #11 open, checks failing');
  });

  it('the published issues are the issue fields only (a mention in a title publishes nothing)', () => {
    assert.deepEqual([...publishedIssues([{ id: 'A', issue: '#4' }, { id: 'B', title: 'see #9' } as { id: string }, { id: 'A', issue: 5 }])], [['A', 4]]);
  });

  it('Sync: passes on GitHub and not here is offered; here and not there is a conflict; unknown stories are left out', () => {
    assert.deepEqual(comparePasses(new Map([['A', false], ['B', true], ['C', true], ['D', false]]), new Map([['A', true], ['B', false], ['C', true]])), { passedRemotely: ['A'], conflicts: ['B'] });
  });
});
