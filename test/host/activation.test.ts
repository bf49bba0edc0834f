import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID, api, extension, workspaceFolder } from './helpers';
import { log } from './log';

interface PerfMark {
  name: string;
  startTime: number;
}

/** VS Code's own performance marks in the extension host (vs/base/common/performance). */
function perfMarks(): PerfMark[] {
  const marks = (globalThis as { MonacoPerformanceMarks?: { getMarks(): PerfMark[] } }).MonacoPerformanceMarks;
  return marks ? marks.getMarks() : [];
}

const COMMANDS = [
  'ralph.refresh',
  'ralph.createPrd',
  'ralph.openPrd',
  'ralph.story.open',
  'ralph.story.markPassing',
  'ralph.story.markNotPassing',
  'ralph.removeBlockedBy',
  'ralph.breakCycle',
  'ralph.showNextStory',
];

suite('activation', () => {
  test('the extension is installed from the development path and the workspace is the demo copy', () => {
    const ext = extension();
    assert.equal(ext.id, EXTENSION_ID);
    assert.equal(ext.packageJSON.name, 'ralph-workbench');
    assert.match(workspaceFolder().uri.fsPath, /demo$/);
    log(`      VS Code ${vscode.version}, workspace ${workspaceFolder().uri.fsPath}`);
  });

  test('activates on the demo workspace and returns the RalphApi', async function () {
    const ext = extension();
    const wasActive = ext.isActive;
    const t0 = performance.now();
    const a = await api();
    const callMs = performance.now() - t0;
    assert.ok(ext.isActive, 'extension is not active after activate()');
    await a.whenIdle();

    // The extension usually activates at startup (workspaceContains:**/prd.json) before the tests
    // run; VS Code's own marks then give the real activation time.
    const marks = perfMarks();
    const mark = (what: string): number | undefined => marks.find((m) => m.name === `code/extHost/${what}/${EXTENSION_ID}`)?.startTime;
    const willLoad = mark('willLoadExtensionCode');
    const didLoad = mark('didLoadExtensionCode');
    const willActivate = mark('willActivateExtension');
    const didActivate = mark('didActivateExtension');
    if (willLoad !== undefined && didActivate !== undefined) {
      const total = didActivate - willLoad;
      const load = didLoad !== undefined ? didLoad - willLoad : NaN;
      const act = willActivate !== undefined ? didActivate - willActivate : NaN;
      log(`      activation: ${total} ms (code loading ${load} ms, activate() ${act} ms; ${wasActive ? 'activated at startup' : 'activated by the test'})`);
    } else {
      log(`      activation: ${Math.round(callMs)} ms (measured around activate(); ${wasActive ? 'it was already active' : 'activated by the test'})`);
    }
  });

  test('registers its commands', async () => {
    await api();
    const all = new Set(await vscode.commands.getCommands(true));
    const missing = COMMANDS.filter((c) => !all.has(c));
    assert.deepEqual(missing, [], `commands not registered: ${missing.join(', ')}`);
  });

  test('contributes the Ralph view container and the Stories view', async () => {
    await api();
    const views = extension().packageJSON.contributes?.views?.ralph as { id: string }[] | undefined;
    assert.ok(views?.some((v) => v.id === 'ralph.stories'), 'package.json does not contribute view ralph.stories in container ralph');
    // Commands the workbench creates for a contributed container and view.
    await vscode.commands.executeCommand('workbench.view.extension.ralph');
    await vscode.commands.executeCommand('ralph.stories.focus');
  });
});
