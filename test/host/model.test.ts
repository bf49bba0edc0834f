/**
 * Issue 17 item 1: one workspace model per folder. A change to prd.json (on disk, or typed in an
 * editor and saved) is parsed once, and every consumer shows that one snapshot: the Stories view,
 * the diagnostics and their quick fixes, the task graph, the status bar and the GitHub layer (a
 * story's `issue` field). The parses are counted by the test build's seam (RalphApi.prdParses).
 * No GitHub session or repository: the GitHub layer shows the documents on disk (no network).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RalphApi } from '../../src/api';
import {
  api,
  demoText,
  findStory,
  prdUri,
  replaceInStory,
  storyState,
  useDemoRestore,
  waitFor,
  waitForDiagnostic,
  waitForGraph,
  waitForTree,
  writePrd,
} from './helpers';

/** The demo with US-006 (the next story) passing, issue 43 on US-010 and an unknown blocker on US-012. */
function changedDemo(): string {
  let text = replaceInStory(demoText, 'US-006', '"passes": false', '"passes": true');
  text = replaceInStory(text, 'US-010', '"passes": false', '"passes": false, "issue": 43');
  return replaceInStory(text, 'US-012', '"US-011"', '"US-011",\n        "US-999"');
}

/** Waits until every consumer of the model shows changedDemo(). */
async function everyViewShowsTheChange(ralph: RalphApi): Promise<void> {
  await waitForTree('the Stories view: US-006 done, US-005 next', (nodes) => {
    const stories = nodes.filter((n) => /^US-\d+ · /.test(n.label));
    return stories.length === 12 && storyState(findStory(stories, 'US-006')) === 'done' && storyState(findStory(stories, 'US-005')) === 'next';
  });
  const [unknown] = await waitForDiagnostic('unknown-blocked-by');
  // The provider command needs the document loaded in the workbench ("Illegal argument" otherwise).
  await vscode.workspace.openTextDocument(prdUri());
  const fixes = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', prdUri(), unknown.range);
  assert.ok(fixes.some((f) => /US-999/.test(f.title) || /Remove/.test(f.title)), `quick fixes for the unknown blocker: ${JSON.stringify(fixes.map((f) => f.title))}`);
  await waitForGraph('the task graph: US-006 done', (g) => g.nodes.some((n) => n.id === 'US-006' && n.state === 'done'));
  await waitFor('the status bar to offer US-005', () => ralph.statusBarSnapshot().text === '$(play) Ralph: US-005', 10_000, () => ralph.statusBarSnapshot());
  await waitFor('the GitHub layer to link US-010 to issue 43', () => ralph.storyArtifacts('US-010')?.issue === 43, 10_000, () => ralph.storyArtifacts('US-010'));
  await ralph.whenIdle();
}

/** Resolves at the next change on disk of prd.json that a file watcher reports. */
function nextDiskChange(): { seen: Promise<void>; dispose: () => void } {
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.workspace.workspaceFolders![0], 'prd.json'));
  const seen = new Promise<void>((resolve) => {
    watcher.onDidChange(() => resolve());
    watcher.onDidCreate(() => resolve());
  });
  return { seen, dispose: () => watcher.dispose() };
}

suite('one workspace model: prd.json parsed once per change (issue 17)', () => {
  useDemoRestore();

  test('written on disk once: one parse, and the Stories view, diagnostics, task graph, status bar and GitHub layer all show it', async () => {
    const ralph = await api();
    await ralph.whenIdle();
    const before = ralph.prdParses();
    await writePrd(changedDemo());
    await everyViewShowsTheChange(ralph);
    assert.equal(ralph.prdParses() - before, 1, 'prd.json parses for one change on disk');
  });

  test('typed in an editor and saved: one parse, shown from the unsaved editor and after the save', async () => {
    const ralph = await api();
    const doc = await vscode.workspace.openTextDocument(prdUri());
    await vscode.window.showTextDocument(doc);
    await ralph.whenIdle();
    const before = ralph.prdParses();
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), changedDemo());
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(doc.isDirty);
    await everyViewShowsTheChange(ralph);
    assert.equal(ralph.prdParses() - before, 1, 'prd.json parses for the typed change');
    const disk = nextDiskChange();
    try {
      assert.ok(await doc.save());
      await disk.seen;
    } finally {
      disk.dispose();
    }
    await everyViewShowsTheChange(ralph);
    assert.equal(ralph.prdParses() - before, 1, 'prd.json parses for the typed change once saved (the same text)');
  });
});
