/**
 * What a commenter can make the extension do (issue 16, item 7), in the real extension host
 * against the local GitHub emulator: a link by an author who is not OWNER, MEMBER or
 * COLLABORATOR shows in the Issues view as a warning that says why, and its document never
 * reaches the runner's prompt; the same link by the owner does, named in the prompt.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RalphApi, TreeSnapshotNode } from '../../src/api';
import { GitHubEmulator } from '../support/githubEmulator';
import { api, readPrdBytes, waitFor, workspaceFolder, writePrd, useStandIn } from './helpers';

// Not named after the issue: only a comment can make it the issue's plan.
const PLAN = 'thoughts/shared/plans/2026-11-20-trusted-plan.md';
const MARKER = 'PLAN-MARKER-7f3a: only a trusted link brings this line into the prompt';
const blob = (p: string): string => `https://github.com/acme/taskflow/blob/main/${p}`;

suite('GitHub trust: untrusted links (emulator)', () => {
  let gh: GitHubEmulator;
  let ralph: RalphApi;
  let original: Uint8Array;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('ralph.github', workspaceFolder().uri);
  const planUri = (): vscode.Uri => vscode.Uri.joinPath(workspaceFolder().uri, ...PLAN.split('/'));
  const prompt = (): Thenable<string> => vscode.commands.executeCommand<string>('ralph.previewPrompt', 'US-006');
  const issue44 = async (): Promise<TreeSnapshotNode | undefined> => (await ralph.issuesSnapshot()).find((n) => n.label.startsWith('#44'));

  suiteSetup(async () => {
    ralph = await api();
    original = await readPrdBytes();
    gh = await new GitHubEmulator().start();
    gh.addIssue(44, 'Trust');
    await vscode.workspace.fs.writeFile(planUri(), new TextEncoder().encode(`# Plan\n\n${MARKER}\n`));
    gh.addComment(44, `## Implementation Plan\n\n${blob(PLAN)}`, { login: 'drive-by', association: 'NONE' });
    await config().update('repository', 'acme/taskflow', vscode.ConfigurationTarget.Workspace);
    await useStandIn(gh.apiUrl);
    const text = new TextDecoder().decode(original);
    assert.ok(text.includes('"id": "US-006",'));
    await writePrd(text.replace('"id": "US-006",', '"id": "US-006",\n      "issue": 44,'));
    await waitFor('issue #44 in the Issues view', async () => {
      await ralph.whenIdle();
      return issue44();
    }, 20_000);
  });

  suiteTeardown(async () => {
    await writePrd(original);
    await vscode.workspace.fs.delete(planUri());
    await useStandIn(undefined);
    await config().update('repository', undefined, vscode.ConfigurationTarget.Workspace);
    await ralph.refreshIssues();
    await ralph.whenIdle();
    await gh.stop();
  });

  test('the Issues view shows the untrusted link as a warning that says who and why', async () => {
    await ralph.refreshIssues();
    const node = await issue44();
    const warnings = (node?.children ?? []).filter((c) => c.contextValue === 'issueWarning').map((c) => c.label);
    assert.ok(
      warnings.some((w) => /Plan comment .*#issuecomment-\d+ by @drive-by \(NONE\) was not followed: .*OWNER, MEMBER or COLLABORATOR.*ralph\.github\.trustedAuthors/.test(w)),
      JSON.stringify(node, null, 1),
    );
    assert.ok(!(node?.children ?? []).some((c) => /^Plan: linked/.test(`${c.label}: ${c.description}`)), 'the plan is not linked');
  });

  test("the runner's prompt has no plan from the untrusted comment", async () => {
    const text = await prompt();
    assert.ok(!text.includes(MARKER), 'the untrusted plan reached the prompt');
    assert.ok(!text.includes('## GitHub issue #44'));
  });

  test('linked by the owner, the plan reaches the prompt, which names the comment and its author', async () => {
    const c = gh.addComment(44, `## Implementation Plan\n\n${blob(PLAN)}`);
    await ralph.refreshIssues();
    const text = await prompt();
    assert.ok(text.includes(MARKER), text.slice(-1500));
    assert.ok(text.includes(`Linked by @ralph-bot (OWNER) in ${c.html_url}.`), text.slice(-1500));
  });
});
