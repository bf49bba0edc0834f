/**
 * Offline, the Issues view keeps the links it saw (issue 18 item 7): documents linked by a comment
 * read earlier show as linked, from the cached comments and marked as cached, not as "on disk, not
 * linked". GitHub is the local emulator (127.0.0.1), stopped to make it unreachable.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RalphApi, TreeSnapshotNode } from '../../src/api';
import { GitHubEmulator } from '../support/githubEmulator';
import { api, workspaceFolder, useStandIn } from './helpers';

const RESEARCH = 'thoughts/shared/research/2026-11-15-GH-0042-task-priorities.md';
const PLAN = 'thoughts/shared/plans/2026-11-16-GH-0042-task-priorities.md';
const blob = (p: string): string => `https://github.com/acme/taskflow/blob/main/${p}`;

/** A markdown tooltip as the user reads it (appendText escapes spaces and punctuation). */
function plainText(markdown: string | undefined): string {
  return (markdown ?? '').replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
}

function artifactNodes(nodes: readonly TreeSnapshotNode[], n: number): TreeSnapshotNode[] {
  const issue = nodes.find((x) => x.label.startsWith(`#${n}`));
  return (issue?.children ?? []).filter((c) => /\bartifact\b/.test(c.contextValue ?? ''));
}

suite('GitHub offline: linked documents from the cached comments', () => {
  let gh: GitHubEmulator;
  let ralph: RalphApi;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('ralph.github', workspaceFolder().uri);

  suiteSetup(async () => {
    ralph = await api();
    gh = await new GitHubEmulator().start();
    gh.addIssue(42, 'Task priorities', ['ralph']);
    gh.addComment(42, `## Research Document\n\n${blob(RESEARCH)}\n\nKey findings.`);
    gh.addComment(42, `## Implementation Plan\n\n${blob(PLAN)}`);
    gh.addComment(42, 'Looks good to me, ship it.');
  });

  suiteTeardown(async () => {
    await useStandIn(undefined);
    await config().update('repository', undefined, vscode.ConfigurationTarget.Workspace);
    await ralph.refreshIssues();
    await gh.stop();
  });

  test('GitHub unreachable after a read: the documents its comments linked show "linked (cached …)", with when they were fetched', async () => {
    await config().update('repository', 'acme/taskflow', vscode.ConfigurationTarget.Workspace);
    await useStandIn(gh.apiUrl);
    await vscode.commands.executeCommand('ralph.github.showIssue', 42);
    await ralph.refreshIssues();
    const online = artifactNodes(await ralph.issuesSnapshot(), 42);
    assert.deepEqual(online.slice(0, 2).map((c) => `${c.label}: ${c.description}`), [
      'Research: linked · 2026-11-15-GH-0042-task-priorities.md',
      'Plan: linked · 2026-11-16-GH-0042-task-priorities.md',
    ]);

    await gh.stop(); // GitHub unreachable: the connection is refused
    await ralph.refreshIssues();
    const nodes = await ralph.issuesSnapshot();
    assert.match(nodes[0].label, /^Offline/, JSON.stringify(nodes.slice(0, 2), null, 1));
    const issue = nodes.find((x) => x.label.startsWith('#42'));
    assert.equal(issue?.label, '#42 Task priorities', 'the title as last read');
    const offline = artifactNodes(nodes, 42);
    const [research, plan] = offline;
    assert.match(`${research.label}: ${research.description}`, /^Research: linked \(cached [^)]+\) · 2026-11-15-GH-0042-task-priorities\.md$/, JSON.stringify(offline, null, 1));
    assert.match(`${plan.label}: ${plan.description}`, /^Plan: linked \(cached [^)]+\) · 2026-11-16-GH-0042-task-priorities\.md$/);
    assert.match(plainText(research.tooltip), /GitHub could not be reached: linked by a comment fetched \d{4}-\d\d-\d\d \d\d:\d\d/);
    // The cache invents no link: the review no comment linked stays on disk, not linked.
    assert.match(`${offline[2].label}: ${offline[2].description}`, /^Plan review: on disk, not linked/);

    // The cache is the extension's own state, not a file in the user's repository, and never holds the token.
    const ralphDir = path.join(workspaceFolder().uri.fsPath, '.ralph');
    const inRepo = fs.existsSync(ralphDir) ? fs.readdirSync(ralphDir, { recursive: true }).map(String) : [];
    assert.ok(!inRepo.some((f) => /cache/i.test(f)), `a cache file in the repository: ${inRepo.join(', ')}`);
    const cached = JSON.stringify(ralph.githubCommentCache());
    assert.ok(cached.includes(blob(RESEARCH)), 'the linking comment is cached');
    assert.doesNotMatch(cached, /token|authorization/i, 'no credential is cached');
    assert.ok(!cached.includes('ship it'), 'a comment that links nothing is not kept');
  });
});
