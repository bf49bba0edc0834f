/**
 * A run that cannot succeed changes nothing (issue 18 item 2), in the real extension host on a git
 * working copy of the demo: with no agent program on the terminal's PATH, Run Next leaves the
 * repository exactly as it was and shows the error with "Open Setting"; with a fake agent on PATH
 * under a preset's program name, the agent chooser offers it, and choosing it writes
 * ralph.agent.preset and runs the story. The terminal's PATH is set the way a user would, with
 * terminal.integrated.env.linux (the preflight looks programs up on that PATH too).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, waitFor, workspaceFolder } from './helpers';
import {
  ensureGitWorkspace,
  fakeAgentPath,
  git,
  type Pristine,
  ralphTerminals,
  resetSettings,
  restoreWorkspace,
  runCommand,
  runsJsonl,
  stopAndCloseTerminals,
  useFakeAgent,
  watchTerminals,
  ws,
} from './runHelpers';

/** A file of real agent output (test/fixtures/agent-output). */
const agentOutput = (rel: string): string => path.join(path.dirname(fakeAgentPath()), 'agent-output', rel);

type Question = Parameters<Parameters<Awaited<ReturnType<typeof api>>['answerConfirmations']>[0] & object>[0];

/** Everything of the repository a run could change: branches, HEAD, the working tree (ignored files too), .ralph/. */
function repositoryState(): Record<string, unknown> {
  return {
    branches: git('for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads'),
    head: git('rev-parse', 'HEAD'),
    checkedOut: git('symbolic-ref', '-q', 'HEAD'),
    status: git('status', '--porcelain', '--ignored', '--untracked-files=all'),
    stashes: git('stash', 'list'),
    ralphFolder: fs.existsSync(ws('.ralph')),
  };
}

suite('run preflight: nothing changes before a run can succeed; the agent chooser (issue 18 item 2)', function () {
  this.timeout(60_000);
  let pristine: Pristine;
  let bin: string;
  let questions: Question[] = [];

  const terminalEnv = () => vscode.workspace.getConfiguration('terminal.integrated', workspaceFolder().uri);
  const envKey = process.platform === 'win32' ? 'env.windows' : process.platform === 'darwin' ? 'env.osx' : 'env.linux';

  /** The agent terminals' PATH: `bin` alone (nothing else found) or before the usual PATH. */
  async function terminalPath(only: boolean): Promise<void> {
    await terminalEnv().update(envKey, { PATH: only ? bin : `${bin}${path.delimiter}\${env:PATH}` }, vscode.ConfigurationTarget.Workspace);
  }

  /** Answers Ralph's questions with `answer` (undefined: closed), recording each. */
  async function answer(answerFor: (q: Question) => string | undefined): Promise<void> {
    (await api()).answerConfirmations((q) => {
      questions.push(q);
      return answerFor(q);
    });
  }

  suiteSetup(async () => {
    await api();
    pristine = ensureGitWorkspace();
  });

  setup(() => {
    questions = [];
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-bin-'));
  });

  teardown(async function () {
    this.timeout(60_000);
    (await api()).answerConfirmations(undefined);
    await stopAndCloseTerminals();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await terminalEnv().update(envKey, undefined, vscode.ConfigurationTarget.Workspace);
    const ralph = vscode.workspace.getConfiguration('ralph');
    if (ralph.inspect('agent.preset')?.globalValue !== undefined) {
      await ralph.update('agent.preset', undefined, vscode.ConfigurationTarget.Global);
    }
    await resetSettings();
    await restoreWorkspace(pristine);
    fs.rmSync(bin, { recursive: true, force: true });
  });

  suiteTeardown(async () => {
    await resetSettings();
    await restoreWorkspace(pristine, { keepSettings: false });
  });

  test('no agent on PATH: Run Next changes nothing (branches, HEAD, working tree, no prompt, no runs.jsonl line, no terminal) and the error offers Open Setting, which opens the Settings UI', async () => {
    await terminalPath(true);
    await answer((q) => (/agent program/.test(q.message) ? 'Open Setting' : undefined));
    const before = repositoryState();

    const { value, opened } = await watchTerminals(() => vscode.commands.executeCommand<unknown>('ralph.runNext'));

    assert.equal(value, undefined, 'the run ends with an error message');
    assert.deepEqual(opened.map((t) => t.name), [], 'no terminal');
    assert.deepEqual(repositoryState(), before, 'the repository is exactly as it was');
    assert.ok(!fs.existsSync(ws('.ralph', 'prompts')), 'no prompt file');
    assert.deepEqual(runsJsonl(), [], 'no runs.jsonl line');
    const error = await waitFor('the error about the missing agent', () => questions.find((q) => /agent program/.test(q.message)));
    assert.match(error.message, /^Ralph: No agent program was found on PATH: looked for "claude", "amp", "codex", "copilot"\. Install Claude Code \(npm install -g @anthropic-ai\/claude-code\)/);
    assert.deepEqual(error.choices, ['Open Setting', 'Installation Guide']);
    await waitFor('the Settings editor to open', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Settings', 10_000, () => vscode.window.tabGroups.activeTabGroup.activeTab?.label);
    assert.equal(vscode.workspace.getConfiguration('ralph').inspect('agent.preset')?.globalValue, undefined, 'no setting written');
  });

  test('a fake agent on PATH under a preset\'s program ("amp"): the chooser offers it with where it was found; choosing it writes ralph.agent.preset and runs the story with it', async () => {
    const amp = path.join(bin, 'amp');
    // The Amp preset pipes its stream-json through render-stream: the fake prints Amp's real stream (a result), as Amp would.
    fs.writeFileSync(amp, `#!/bin/sh\nFAKE_AGENT_MODE=pass FAKE_AGENT_RECEIPT="${agentOutput('amp/stream-json.jsonl')}" exec node "${fakeAgentPath()}" "$@"\n`, { mode: 0o755 });
    await terminalPath(false);
    await answer((q) => (q.items ? 'Amp' : undefined));

    const r = await runCommand('ralph.runNext');

    const chooser = questions.find((q) => q.items);
    assert.ok(chooser, `the chooser was shown; questions: ${JSON.stringify(questions)}`);
    assert.match(chooser.message, /Claude Code \("claude"\) is not installed: choose an agent found on PATH/);
    const item = chooser.items?.find((i) => i.label === 'Amp');
    assert.equal(item?.description, `"amp" found at ${amp}`);
    assert.ok(!chooser.choices.includes('Claude Code'), 'the missing agent is not offered');
    assert.equal(vscode.workspace.getConfiguration('ralph', workspaceFolder().uri).inspect('agent.preset')?.globalValue, 'amp', 'written to the user settings');
    assert.equal(vscode.workspace.getConfiguration('ralph', workspaceFolder().uri).inspect('agent.preset')?.workspaceValue, undefined, 'not to the workspace');
    assert.deepEqual(r.iterations.map((i) => i.outcome), ['passed'], JSON.stringify(r));
    assert.deepEqual(runsJsonl().map((x) => [x.storyId, x.agent, x.outcome]), [['US-006', 'amp', 'passed']]);
  });

  test("the default claude preset runs through the bundled render-stream (VS Code's executable, the extension's dist/cli.js): the run records the receipt of Claude's stream-json", async () => {
    fs.writeFileSync(
      path.join(bin, 'claude'),
      // test/fixtures/pretend-claude.sh prints Claude's stream-json only when the preset asks for it, as Claude Code does.
      `#!/bin/sh\nFAKE_AGENT_MODE=pass PRETEND_STREAM="${agentOutput('claude/stream-json.jsonl')}" exec sh "${path.join(path.dirname(fakeAgentPath()), 'pretend-claude.sh')}" "$@"\n`,
      { mode: 0o755 },
    );
    await terminalPath(false);

    const r = await runCommand('ralph.runNext');

    assert.deepEqual(r.iterations.map((i) => i.outcome), ['passed'], JSON.stringify(r));
    assert.deepEqual(
      runsJsonl().map((x) => [x.storyId, x.agent, x.outcome, x.exitCode, x.receipt, x.cost, x.tokens, x.model, x.turns]),
      [['US-006', 'claude', 'passed', 0, 'parsed', 0.033231000000000004, { input: 4, output: 107, cacheRead: 38897, cacheWrite: 1774 }, 'claude-opus-4-6', 2]],
    );
  });

  test('closing the chooser runs nothing and writes nothing', async () => {
    fs.writeFileSync(path.join(bin, 'codex'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    await terminalPath(true);
    await answer(() => undefined);
    const before = repositoryState();

    const r = await runCommand('ralph.runNext');

    assert.equal(r.stop.reason, 'cancelled');
    assert.deepEqual(questions.map((q) => q.choices), [['Codex CLI']], 'only the chooser was shown');
    assert.deepEqual(repositoryState(), before);
    assert.deepEqual(ralphTerminals(), []);
    assert.equal(vscode.workspace.getConfiguration('ralph').inspect('agent.preset')?.globalValue, undefined);
  });

  test('an agent that keeps exiting with an error: the message offers Open Setting at ralph.agent.command', async () => {
    await useFakeAgent({ mode: 'fail' });
    await vscode.workspace.getConfiguration('ralph', workspaceFolder().uri).update('loop.failureLimit', 1, vscode.ConfigurationTarget.Workspace);
    await answer((q) => (/exited with an error/.test(q.message) ? 'Open Setting' : undefined));

    const r = await runCommand('ralph.startLoop', 3);

    assert.equal(r.stop.reason, 'failures', r.stop.message);
    const error = await waitFor('the failure message', () => questions.find((q) => /exited with an error/.test(q.message)));
    assert.deepEqual(error.choices, ['Open Setting']);
    await waitFor('the Settings editor to open', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Settings', 10_000, () => vscode.window.tabGroups.activeTabGroup.activeTab?.label);
  });
});
