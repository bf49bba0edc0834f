/**
 * Add GitHub Actions Workflow (issue 20) in the real extension host, on the demo workspace: the
 * proposed ralph.yml is shown as a diff before anything is written, Write writes it, a file the
 * user edited is kept unless they press "Replace my edits", and Restricted Mode refuses it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { proposedWorkflow } from '../../src/node/github/workflowFile';
import { answering, api, closeAllEditors, expectCommandError, workspaceFolder } from './helpers';

const COMMAND = 'ralph.github.addWorkflow';

suite('Add GitHub Actions Workflow', () => {
  const file = (): string => path.join(workspaceFolder().uri.fsPath, '.github', 'workflows', 'ralph.yml');
  const githubDir = (): string => path.join(workspaceFolder().uri.fsPath, '.github');
  let hadGithubDir = false;

  /** What the command should write for the demo's settings. */
  const expected = (): string => {
    const c = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
    return proposedWorkflow({
      agentPreset: c.get<string>('agent.preset', 'claude'),
      agentCommand: c.get<string>('agent.command', ''),
      prdPath: c.get<string>('prdPath', 'prd.json'),
      parallelMaxAgents: c.get<number>('parallel.maxAgents', 3),
    });
  };

  /** Runs the command answering `answer`; records whether a diff of the proposed text was open while it asked. */
  async function run(answer: string | undefined): Promise<{ questions: { message: string; choices: readonly string[] }[]; diffShown: boolean[] }> {
    const diffShown: boolean[] = [];
    const a = await api();
    const questions: { message: string; choices: readonly string[] }[] = [];
    a.answerConfirmations((q) => {
      questions.push(q);
      diffShown.push(
        vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'ralph-proposed' && t.input.modified.path.endsWith('/.github/workflows/ralph.yml'))),
      );
      return answer;
    });
    try {
      await vscode.commands.executeCommand(COMMAND);
    } finally {
      a.answerConfirmations(undefined);
    }
    return { questions, diffShown };
  }

  suiteSetup(async () => {
    await api();
    hadGithubDir = fs.existsSync(githubDir());
    assert.ok(!fs.existsSync(file()), 'the demo has no ralph.yml');
  });

  suiteTeardown(async () => {
    await closeAllEditors();
    if (hadGithubDir) {
      fs.rmSync(file(), { force: true });
    } else {
      fs.rmSync(githubDir(), { recursive: true, force: true });
    }
  });

  test('shows the workflow as a diff first; Cancel writes nothing, Write writes it', async () => {
    const cancelled = await run(undefined);
    assert.equal(cancelled.questions.length, 1);
    assert.match(cancelled.questions[0].message, /^Write \.github\/workflows\/ralph\.yml for the \w+ agent\?$/);
    assert.deepEqual(cancelled.questions[0].choices, ['Write']);
    assert.deepEqual(cancelled.diffShown, [true], 'the diff was open while the question was asked');
    assert.ok(!fs.existsSync(file()), 'Cancel wrote nothing');

    const written = await run('Write');
    assert.deepEqual(written.diffShown, [true]);
    assert.equal(fs.readFileSync(file(), 'utf8'), expected());
    assert.match(fs.readFileSync(file(), 'utf8'), /^# ralph-workbench: generated [0-9a-f]{12}\n/);
  });

  test('a file the user edited is kept unless they press "Replace my edits"', async () => {
    if (!fs.existsSync(file())) {
      fs.mkdirSync(path.dirname(file()), { recursive: true });
      fs.writeFileSync(file(), expected());
    }
    const edited = fs.readFileSync(file(), 'utf8').replace('timeout-minutes: 120', 'timeout-minutes: 45');
    assert.notEqual(edited, expected());
    fs.writeFileSync(file(), edited);

    const kept = await run(undefined);
    assert.equal(kept.questions.length, 1);
    assert.match(kept.questions[0].message, /You edited \.github\/workflows\/ralph\.yml since Ralph generated it/);
    assert.deepEqual(kept.questions[0].choices, ['Replace my edits']);
    assert.equal(fs.readFileSync(file(), 'utf8'), edited, 'the edits are kept');

    await run('Replace my edits');
    assert.equal(fs.readFileSync(file(), 'utf8'), expected());

    const again = await run('Write');
    assert.deepEqual(again.questions, [], 'an up-to-date file asks nothing');
  });

  test('Restricted Mode refuses it and writes nothing', async () => {
    fs.rmSync(file(), { force: true });
    const a = await api();
    a.simulateRestrictedMode(true);
    try {
      const message = await expectCommandError(COMMAND, () => answering('Write', () => vscode.commands.executeCommand(COMMAND)));
      assert.match(message, /Adding the GitHub Actions workflow needs a trusted workspace/);
    } finally {
      a.simulateRestrictedMode(false);
    }
    assert.ok(!fs.existsSync(file()));
  });
});
