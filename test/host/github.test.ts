/**
 * The Issues view in the real extension host, against the local GitHub emulator (127.0.0.1).
 * The real authentication providers cannot sign in offline, so the emulator is the GitHub
 * stand-in of the user setting ralph.github.standInUrl (application scope) (no token is sent to it).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RalphApi, TreeSnapshotNode } from '../../src/api';
import { SELF_HEAL_NOTE } from '../../src/core/artifacts/protocol';
import { GitHubEmulator } from '../support/githubEmulator';
import { answering, api, expectCommandError, readPrdBytes, waitFor, workspaceFolder, writePrd, useStandIn } from './helpers';

const RESEARCH = 'thoughts/shared/research/2026-11-15-GH-0042-task-priorities.md';
const PLAN = 'thoughts/shared/plans/2026-11-16-GH-0042-task-priorities.md';
const REVIEW = 'thoughts/shared/reviews/2026-11-16-GH-0042-critique.md';
const blob = (p: string, repo = 'acme/taskflow'): string => `https://github.com/${repo}/blob/main/${p}`;

function issueNode(nodes: readonly TreeSnapshotNode[], n: number): TreeSnapshotNode | undefined {
  return nodes.find((x) => x.label.startsWith(`#${n}`));
}

function artifacts(node: TreeSnapshotNode | undefined): string[] {
  return (node?.children ?? []).filter((c) => /\bartifact\b/.test(c.contextValue ?? '')).map((c) => `${c.label}: ${c.description}`);
}

suite('GitHub Issues view (emulator)', () => {
  let gh: GitHubEmulator;
  let ralph: RalphApi;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('ralph.github', workspaceFolder().uri);

  suiteSetup(async () => {
    ralph = await api();
    gh = await new GitHubEmulator().start();
    gh.addIssue(42, 'Task priorities', ['ralph']);
    gh.addIssue(43, 'Notifications');
  });

  suiteTeardown(async () => {
    await useStandIn(undefined);
    await config().update('repository', undefined, vscode.ConfigurationTarget.Workspace);
    await ralph.refreshIssues();
    await gh.stop();
  });

  test('without a repository or session: the documents on disk, and a node that says so', async () => {
    await useStandIn(undefined);
    await vscode.commands.executeCommand('ralph.github.showIssue', 42);
    const nodes = await ralph.issuesSnapshot();
    assert.match(nodes[0].label, /No GitHub repository|Sign in to GitHub/, JSON.stringify(nodes, null, 1));
    const i42 = issueNode(nodes, 42);
    assert.deepEqual(artifacts(i42), [
      'Research: on disk, not linked · 2026-11-15-GH-0042-task-priorities.md',
      'Plan: on disk, not linked · 2026-11-16-GH-0042-task-priorities.md',
      'Plan review: on disk, not linked · APPROVED · 2026-11-16-GH-0042-critique.md',
      'Implementation: missing',
    ]);
    // No repository: Self-heal is not offered (no "healable" issue, no "onDisk" document), and
    // run anyway it says why, asking nothing and posting nothing (issue 18 item 6).
    assert.doesNotMatch(i42?.contextValue ?? '', /\bhealable\b/);
    assert.ok((i42?.children ?? []).every((c) => !/\bonDisk\b/.test(c.contextValue ?? '')), JSON.stringify(i42?.children?.map((c) => c.contextValue)));
    const asked = await answering('Post Comment', () => expectCommandError('ralph.github.selfHeal', () => vscode.commands.executeCommand('ralph.github.selfHeal', { issue: 42, path: PLAN })));
    assert.match(asked.result, /has no GitHub repository/);
    assert.deepEqual(asked.questions, []);
    assert.equal(gh.requests.length, 0);
  });

  test('signed out with a repository: "Sign in to GitHub" and disk-only results', async () => {
    await config().update('repository', 'acme/taskflow', vscode.ConfigurationTarget.Workspace);
    await ralph.refreshIssues();
    const nodes = await ralph.issuesSnapshot();
    assert.equal(nodes[0].label, 'Sign in to GitHub', JSON.stringify(nodes, null, 1));
    assert.ok(issueNode(nodes, 42));
  });

  test('signed in: linked from a comment, on disk not linked, missing; the phase and verdict', async () => {
    gh.addComment(42, `## Research Document\n\n${blob(RESEARCH)}\n\nKey findings.`);
    gh.addComment(42, `## Plan Review\n\nVERDICT: APPROVED\n\nFull critique: ${blob(REVIEW)}`);
    await useStandIn(gh.apiUrl);
    await ralph.refreshIssues();
    const nodes = await ralph.issuesSnapshot();
    const i42 = issueNode(nodes, 42);
    assert.equal(i42?.label, '#42 Task priorities');
    assert.match(i42?.description ?? '', /open · next: implement · ralph/);
    assert.deepEqual(artifacts(i42), [
      'Research: linked · 2026-11-15-GH-0042-task-priorities.md',
      'Plan: on disk, not linked · 2026-11-16-GH-0042-task-priorities.md',
      'Plan review: linked · APPROVED · 2026-11-16-GH-0042-critique.md',
      'Implementation: missing',
    ]);
    assert.ok(!nodes.some((n) => /\bnotice\b/.test(n.contextValue ?? '')), 'no notice when GitHub was read');
  });

  test('self-heal posts exactly one well-formed comment; the node turns linked; a second self-heal posts none', async () => {
    const before = gh.issues.get(42)!.comments.length;
    const heal = await answering('Post Comment', () => vscode.commands.executeCommand<number>('ralph.github.selfHeal', { issue: 42, path: PLAN }));
    assert.equal(heal.result, 1);
    assert.deepEqual(heal.questions.map((q) => q.message), ['Post this comment to acme/taskflow#42?']);
    // The confirmation shows the comment exactly as it is posted (issue 18 item 6).
    assert.ok(heal.questions[0].detail?.startsWith(`## Implementation Plan\n\n${blob(PLAN)}\n\n${SELF_HEAL_NOTE}`), heal.questions[0].detail);
    const comments = gh.issues.get(42)!.comments;
    assert.equal(comments.length, before + 1);
    assert.equal(comments.at(-1)!.body, `## Implementation Plan\n\n${blob(PLAN)}\n\n${SELF_HEAL_NOTE}`);
    const nodes = await ralph.issuesSnapshot();
    assert.match(artifacts(issueNode(nodes, 42))[1], /^Plan: linked/);
    // The same self-heal again (not Self-heal All: the demo's issue 43 has documents of its own to link).
    const again = await answering('Post Comment', () => vscode.commands.executeCommand<number>('ralph.github.selfHeal', { issue: 42, path: PLAN }));
    assert.equal(again.result, 0);
    assert.deepEqual(again.questions, [], 'nothing left to ask about');
    assert.equal(gh.issues.get(42)!.comments.length, before + 1, 'nothing posted twice');
  });

  test('refresh with nothing changed costs only 304s', async () => {
    await ralph.refreshIssues();
    await ralph.issuesSnapshot();
    const mark = gh.requests.length;
    await vscode.commands.executeCommand('ralph.github.refresh');
    await ralph.issuesSnapshot();
    const refresh = gh.since(mark);
    assert.ok(refresh.length > 0);
    assert.deepEqual([...new Set(refresh.map((r) => r.status))], [304], JSON.stringify(refresh));
  });

  test('a link into another repository or with ../ is never opened as a local file', async () => {
    gh.addComment(43, `## Research Document\n\n${blob('thoughts/shared/research/2026-11-17-GH-0043-priority-notifications.md', 'evil/fork')}`);
    gh.addComment(43, '## Implementation Plan\n\nhttps://github.com/acme/taskflow/blob/main/thoughts/../../../etc/passwd');
    await vscode.commands.executeCommand('ralph.github.showIssue', '#43');
    const i43 = issueNode(await ralph.issuesSnapshot(), 43);
    const research = (i43?.children ?? []).filter((c) => c.label === 'Research');
    assert.deepEqual(research.map((c) => c.description?.split(' · ')[0]), ['linked', 'on disk, not linked']);
    assert.match(research[0].description ?? '', /github\.com\/evil\/fork/);
    assert.match(research[0].icon ?? '', /link-external/);
  });

  test('Link to Issue from an open thoughts/shared document posts its comment once', async () => {
    const rel = 'thoughts/shared/research/2026-11-17-GH-0043-priority-notifications.md';
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(workspaceFolder().uri, ...rel.split('/')));
    await vscode.window.showTextDocument(doc);
    const before = gh.issues.get(43)!.comments.length;
    const link = (): Thenable<boolean | undefined> => vscode.commands.executeCommand<boolean>('ralph.github.linkToIssue');
    const first = await answering('Post Comment', link);
    assert.equal(first.result, true);
    assert.deepEqual(first.questions.map((q) => q.message), [`Link ${rel} to issue #43 as its research?`]);
    assert.equal(gh.issues.get(43)!.comments.at(-1)!.body, `## Research Document\n\n${blob(rel)}`);
    assert.equal((await answering('Post Comment', link)).result, false);
    assert.equal(gh.issues.get(43)!.comments.length, before + 1, 'posted once');
    const i43 = issueNode(await ralph.issuesSnapshot(), 43);
    assert.ok(artifacts(i43).some((a) => a.startsWith('Research: linked · 2026-11-17')), JSON.stringify(artifacts(i43)));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  for (const [name, arm, label] of [
    ['403 rate limit', () => gh.faults.push({ path: /./, fault: { kind: 'rate-limit', resetInSeconds: 3600 } }), /^Rate-limited: showing documents on disk only$/],
    ['401', () => gh.faults.push({ path: /./, fault: { kind: 'status', status: 401 } }), /^GitHub refused the session/],
    ['500', () => gh.faults.push({ path: /./, fault: { kind: 'status', status: 500 } }), /^GitHub could not be read/],
  ] as const) {
    test(`fault ${name}: a clear node, documents on disk, and the view still works`, async () => {
      arm();
      try {
        await ralph.refreshIssues();
        const nodes = await ralph.issuesSnapshot();
        assert.match(nodes[0].label, label, JSON.stringify(nodes.slice(0, 2), null, 1));
        assert.ok(nodes[0].tooltip && nodes[0].tooltip.length > 20, 'the tooltip says what to do');
        const i42 = issueNode(nodes, 42);
        assert.match(i42?.description ?? '', /disk only/);
        assert.match(artifacts(i42)[0], /^Research: on disk/);
      } finally {
        gh.faults.length = 0;
      }
    });
  }

  test('the stand-in (ralph.github.standInUrl) is used without a token: no request carries one', async () => {
    await ralph.refreshIssues();
    await ralph.issuesSnapshot();
    assert.ok(gh.requests.length > 0, 'the stand-in was read');
    assert.deepEqual(gh.requests.filter((r) => r.authorized), []);
  });
});

suite('task graph artifact badge (emulator)', () => {
  let gh: GitHubEmulator;
  let ralph: RalphApi;
  let original: Uint8Array;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('ralph.github', workspaceFolder().uri);
  type Badge = { issue: number; research: string; plan: string; review: string; implementation: string; verdict?: string; warnings: string[] };
  const badgeOf = (id: string): Badge | undefined => {
    const g = ralph.taskGraphSnapshot() as { type: string; nodes?: { id: string; artifacts?: Badge }[] };
    return g?.type === 'graph' ? g.nodes?.find((n) => n.id === id)?.artifacts : undefined;
  };

  suiteSetup(async () => {
    ralph = await api();
    original = await readPrdBytes();
    gh = await new GitHubEmulator().start();
    gh.addIssue(42, 'Task priorities', ['ralph']);
    gh.addComment(42, `## Research Document\n\n${blob(RESEARCH)}`);
    gh.addComment(42, `## Plan Review\n\nVERDICT: APPROVED\n\nFull critique: ${blob(REVIEW)}`);
  });

  suiteTeardown(async () => {
    await writePrd(original);
    await useStandIn(undefined);
    await config().update('repository', undefined, vscode.ConfigurationTarget.Workspace);
    await ralph.refreshIssues();
    await ralph.whenIdle();
    await gh.stop();
  });

  test('a story with "issue": 42 gets a badge with the linked and on-disk statuses; a badge change does not re-run the layout', async () => {
    await config().update('repository', 'acme/taskflow', vscode.ConfigurationTarget.Workspace);
    await useStandIn(gh.apiUrl);
    // The issue is already shown ("Show Issue #42"), so giving a story that issue changes only
    // which story it belongs to: the badge must follow without a new request.
    await vscode.commands.executeCommand('ralph.github.showIssue', 42);
    await ralph.refreshIssues();
    await ralph.whenIdle();
    const requests = gh.requests.length;
    const text = new TextDecoder().decode(original);
    assert.ok(text.includes('"id": "US-006",'));
    await writePrd(text.replace('"id": "US-006",', '"id": "US-006",\n      "issue": 42,'));
    const first = await waitFor('US-006 to carry the badge of issue #42', async () => {
      await ralph.whenIdle();
      const b = badgeOf('US-006');
      return b?.issue === 42 && b.research === 'linked' ? b : undefined;
    }, 20_000, () => ralph.taskGraphSnapshot());
    assert.deepEqual(first, { issue: 42, research: 'linked', plan: 'on-disk', review: 'linked', implementation: 'missing', verdict: 'APPROVED', warnings: [] });
    assert.deepEqual(ralph.storyArtifacts('US-006'), first, 'the API and the graph agree');
    assert.equal(badgeOf('US-005'), undefined, 'a story without an issue has no badge');
    assert.equal(gh.requests.length, requests, 'linking a story to an issue already read sends no request');

    const runs = ralph.taskGraphLayoutRuns();
    gh.addComment(42, `## Implementation Plan\n\n${blob(PLAN)}`);
    await ralph.refreshIssues();
    await waitFor('the badge to show the plan linked', async () => {
      await ralph.whenIdle();
      return badgeOf('US-006')?.plan === 'linked';
    }, 20_000, () => badgeOf('US-006'));
    assert.equal(ralph.taskGraphLayoutRuns(), runs, 'a badge change must not re-run the layout');
    assert.equal((ralph.taskGraphSnapshot() as { layout?: unknown }).layout, undefined, 'the badge update carries no layout');
  });
});
