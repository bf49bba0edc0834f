/**
 * One command pipeline (issue 17, item 3), in the real extension host: every command, the GitHub
 * ones included, is registered through the registrar (src/commands/registrar.ts), which refuses in
 * Restricted Mode what writes, runs or posts before the handler runs, and catches, logs and records
 * what a handler throws; every question goes through one confirmation seam (src/services/confirm.ts)
 * that these tests answer. GitHub is the local emulator.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RalphApi, TreeSnapshotNode } from '../../src/api';
import { GitHubEmulator } from '../support/githubEmulator';
import { answering, api, expectCommandError, readPrdBytes, takeCommandErrors, waitFor, workspaceFolder, useStandIn } from './helpers';

const PLAN = 'thoughts/shared/plans/2026-11-16-GH-0042-task-priorities.md';
const RESEARCH = 'thoughts/shared/research/2026-11-15-GH-0042-task-priorities.md';

suite('one command pipeline: registrar, trust from declared needs, one confirmation seam', function () {
  this.timeout(60_000);
  let gh: GitHubEmulator;
  let ralph: RalphApi;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('ralph.github', workspaceFolder().uri);
  const uriOf = (rel: string): vscode.Uri => vscode.Uri.joinPath(workspaceFolder().uri, ...rel.split('/'));
  /** The POST requests since the request numbered `mark`. */
  const postsSince = (mark: number): number => gh.since(mark).filter((r) => r.method === 'POST').length;
  const planRow = async (): Promise<string | undefined> => {
    const i42: TreeSnapshotNode | undefined = (await ralph.issuesSnapshot()).find((n) => n.label.startsWith('#42'));
    return (i42?.children ?? []).map((c) => `${c.label}: ${c.description}`).find((x) => x.startsWith('Plan:'));
  };
  const logText = (): string => {
    const dir = ralph.logFolder;
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.log')) : [];
    return files.map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
  };

  suiteSetup(async () => {
    ralph = await api();
    gh = await new GitHubEmulator().start();
    gh.addIssue(42, 'Task priorities');
    await config().update('repository', 'acme/taskflow', vscode.ConfigurationTarget.Workspace);
    await useStandIn(gh.apiUrl);
  });

  setup(async () => {
    gh.faults.length = 0;
    await vscode.commands.executeCommand('ralph.github.showIssue', 42);
    await ralph.refreshIssues();
    await waitFor('the plan of #42 on disk, not linked', async () => (await planRow())?.startsWith('Plan: on disk, not linked'));
  });

  teardown(async () => {
    ralph.simulateRestrictedMode(false);
    gh.faults.length = 0;
  });

  suiteTeardown(async () => {
    await useStandIn(undefined);
    await config().update('repository', undefined, vscode.ConfigurationTarget.Workspace);
    await ralph.refreshIssues();
    await ralph.whenIdle();
    await gh.stop();
  });

  test('a GitHub command that throws is caught, logged and recorded like every other command', async () => {
    const gone = 'thoughts/shared/plans/2026-11-30-GH-0042-gone.md';
    let result: unknown = 'never settled';
    const message = await expectCommandError('ralph.github.openArtifact', async () => {
      result = await vscode.commands.executeCommand('ralph.github.openArtifact', workspaceFolder().uri, gone);
    });
    assert.equal(result, undefined, 'the error does not reach the caller: the registrar caught it');
    assert.match(message, /GH-0042-gone\.md/);
    await waitFor('the error in the log, with the command id', () => logText().includes('[ralph.github.openArtifact]'));
  });

  test('a self-heal whose post fails: the error is caught, logged and recorded, and nothing is linked', async () => {
    gh.faults.push({ path: /\/comments$/, method: 'POST', fault: { kind: 'status', status: 401 }, times: 1 });
    const before = gh.issues.get(42)!.comments.length;
    let asked: readonly { message: string }[] = [];
    const message = await expectCommandError('ralph.github.selfHeal', async () => {
      asked = (await answering('Post Comment', () => vscode.commands.executeCommand('ralph.github.selfHeal', { issue: 42, path: PLAN }))).questions;
    });
    assert.deepEqual(asked.map((q) => q.message), ['Post this comment to acme/taskflow#42?']);
    assert.doesNotMatch(message, /Cannot read properties|is not a function/, 'a message for a person, not a raw JavaScript error');
    assert.equal(gh.issues.get(42)!.comments.length, before, 'nothing was posted');
    await waitFor('the error in the log, with the command id', () => logText().includes('[ralph.github.selfHeal]'));
  });

  test('in Restricted Mode, a command that writes, runs or posts is refused before its handler runs: no question, nothing changed', async () => {
    const mark = gh.requests.length;
    const prdBefore = await readPrdBytes();
    const agentsBefore = fs.readFileSync(uriOf('AGENTS.md').fsPath);
    ralph.simulateRestrictedMode(true);
    const { questions } = await answering(undefined, async () => {
      const note = await expectCommandError('ralph.agents.addNote', () => vscode.commands.executeCommand('ralph.agents.addNote', uriOf('db/migrations/004_add_task_priority.sql'), 'Gotchas', 'A note'));
      assert.equal(note, 'Adding a note to AGENTS.md needs a trusted workspace: this folder is open in Restricted Mode. Use "Manage Workspace Trust" to trust it.');
      // US-001 passes: a handler that ran would ask "Run the agent on it anyway?".
      const run = await expectCommandError('ralph.story.run', () => vscode.commands.executeCommand('ralph.story.run', 'US-001'));
      assert.match(run, /^Running an agent needs a trusted workspace/);
      // Posting is refused with its warning (not an error), before the confirmation.
      assert.equal(await vscode.commands.executeCommand('ralph.github.selfHeal', { issue: 42, path: PLAN }), undefined);
      assert.equal(await vscode.commands.executeCommand('ralph.github.selfHealAll'), undefined);
      assert.equal(await vscode.commands.executeCommand('ralph.github.linkToIssue', uriOf(RESEARCH)), undefined);
      assert.deepEqual(await takeCommandErrors(), []);
    });
    assert.deepEqual(questions, [], 'no handler got as far as its question');
    assert.equal(postsSince(mark), 0, 'nothing was posted');
    assert.ok(Buffer.from(await readPrdBytes()).equals(Buffer.from(prdBefore)), 'prd.json unchanged');
    assert.ok(fs.readFileSync(uriOf('AGENTS.md').fsPath).equals(agentsBefore), 'AGENTS.md unchanged');
    assert.equal(fs.existsSync(uriOf('db/migrations/AGENTS.md').fsPath), false, 'no AGENTS.md created');
    assert.equal(ralph.runnerState().running, false, 'no agent started');
  });

  test('a question answered "no" through the seam changes nothing', async () => {
    const mark = gh.requests.length;
    const heal = await answering(undefined, () => vscode.commands.executeCommand('ralph.github.selfHeal', { issue: 42, path: PLAN }));
    assert.equal(heal.questions.length, 1);
    assert.equal(heal.questions[0].message, 'Post this comment to acme/taskflow#42?');
    assert.deepEqual(heal.questions[0].choices, ['Post Comment']);
    assert.match(heal.questions[0].detail ?? '', /^## Implementation Plan\n\nhttps:\/\/github\.com\/acme\/taskflow\/blob\/main\/thoughts\/shared\/plans\/2026-11-16-GH-0042-task-priorities\.md\n/);
    assert.equal(postsSince(mark), 0, 'nothing was posted');
    assert.match((await planRow()) ?? '', /^Plan: on disk, not linked/);

    const run = await answering(undefined, () => vscode.commands.executeCommand('ralph.story.run', 'US-001'));
    assert.deepEqual(run.questions.map((q) => [q.message, q.choices]), [['US-001 already passes. Run the agent on it anyway?', ['Run Anyway']]]);
    assert.equal(ralph.runnerState().running, false, 'no agent started');
    assert.deepEqual(vscode.window.terminals.filter((t) => t.name.startsWith('Ralph:')).map((t) => t.name), [], 'no agent terminal');
  });
});
