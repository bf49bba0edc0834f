/**
 * The Stories view marks the story an agent works on while its iteration runs (issue 7 §1.12):
 * the fake agent (test/fixtures/fake-agent.mjs) in a real terminal, on a git copy of the demo.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { api, findStory, storyState, waitForTree } from './helpers';
import { ensureGitWorkspace, fakeAgentPath, git, type Pristine, resetSettings, restoreWorkspace, stopAndCloseTerminals, useFakeAgent } from './runHelpers';

suite('Stories view: the running story', function () {
  this.timeout(60_000);
  let pristine: Pristine;
  let errorsSeen: () => unknown = () => [];

  suiteSetup(async () => {
    const a = await api();
    errorsSeen = () => a.commandErrors();
    pristine = ensureGitWorkspace();
    assert.ok(fs.existsSync(fakeAgentPath()));
  });

  teardown(async function () {
    this.timeout(60_000);
    await stopAndCloseTerminals();
    await resetSettings();
    await restoreWorkspace(pristine);
  });

  test('while its iteration runs, US-006 shows a spinning icon and "running · 1/1"; afterwards it is done', async () => {
    // Its own state: the committed demo, whatever an earlier suite left in the working tree.
    git('reset', '-q', '--hard');
    git('clean', '-q', '-fd', '-e', '.vscode');
    await useFakeAgent({ mode: 'pass', delayMs: 2500 });
    let settled = false;
    const run = vscode.commands.executeCommand<unknown>('ralph.runNext').then((r) => {
      settled = true;
      return r;
    });
    const running = await waitForTree('US-006 to be marked as running', (n) => {
      assert.ok(!settled, `the run ended before US-006 was marked; command errors: ${JSON.stringify(errorsSeen())}`);
      return storyState(findStory(n, 'US-006')) === 'running';
    }, 1, 20_000);
    const us006 = findStory(running, 'US-006');
    assert.equal(us006.label, 'US-006 · running · Sort tasks by priority');
    assert.equal(us006.icon, 'loading~spin');
    assert.match(us006.description ?? '', /^running · 1\/1\b/);
    assert.equal(running.filter((n) => storyState(n) === 'running').length, 1, 'only the story being worked on is marked');
    assert.ok(await run, 'the run ended with a result');
    const after = await waitForTree('US-006 to be done once the iteration ended', (n) => storyState(findStory(n, 'US-006')) === 'done', 1, 20_000);
    assert.notEqual(findStory(after, 'US-006').icon, 'loading~spin');
  });
});
