/**
 * Budget caps in the real extension host (issue 21): the fake agent prints a real Claude Code
 * result (test/fixtures/agent-output/claude/json-result.json) in its terminal; the runner reads
 * each run's receipt into runs.jsonl and stops the loop once ralph.budget.maxCostPerLoop is spent.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, workspaceFolder } from './helpers';
import { ensureGitWorkspace, type Pristine, resetSettings, restoreWorkspace, runCommand, runsJsonl, stopAndCloseTerminals, useFakeAgent } from './runHelpers';

suite('budget caps (receipts from the agent terminal, ralph.budget.*)', function () {
  this.timeout(120_000);
  let pristine: Pristine;

  suiteSetup(async () => {
    await api();
    pristine = ensureGitWorkspace();
  });

  teardown(async () => {
    await stopAndCloseTerminals();
    await resetSettings();
    await restoreWorkspace(pristine);
  });

  test('a loop stops once its runs reported spending ralph.budget.maxCostPerLoop: a deliberate stop naming the cap and the amount; each run line has its receipt', async () => {
    await useFakeAgent({ mode: 'pass', receipt: 'claude/json-result.json' });
    await vscode.workspace.getConfiguration('ralph', workspaceFolder().uri).update('budget.maxCostPerLoop', 0.05, vscode.ConfigurationTarget.Workspace);
    const r = await runCommand('ralph.startLoop', 10);
    assert.equal(r.stop.reason, 'budget', r.stop.message);
    assert.match(r.stop.message, /^Stopped: the loop's cost cap \$0\.05 is reached \(\$0\.07 spent in 2 runs\)/);
    const runs = runsJsonl();
    assert.deepEqual(
      runs.map((x) => [x.storyId, x.outcome, x.receipt, x.cost, x.model, x.turns]),
      [
        ['US-006', 'passed', 'parsed', 0.032542999999999996, 'claude-opus-4-6', 2],
        ['US-005', 'passed', 'parsed', 0.032542999999999996, 'claude-opus-4-6', 2],
      ],
    );
    assert.deepEqual(runs[0].tokens, { input: 4, output: 101, cacheRead: 38821, cacheWrite: 1694 });
  });
});
