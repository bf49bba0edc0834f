/**
 * Issue 17 item 1: one workspace model per folder. A change to prd.json (on disk, or typed in an
 * editor and saved) is parsed once, and every consumer shows that one snapshot: the Stories view,
 * the diagnostics and their quick fixes, the task graph, the status bar and the GitHub layer (a
 * story's `issue` field). The parses are counted by the test build's seam (RalphApi.prdParses).
 * No GitHub session or repository: the GitHub layer shows the documents on disk (no network).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RalphApi } from '../../src/api';
import { analyzePrd } from '../../src/core/prd/index';
import type { PrdEntry, PrdWorkspace } from '../../src/services/prdWorkspace';
import type { Runner } from '../../src/services/run/runner';
import { RunsWorkspace } from '../../src/services/runsWorkspace';
import { STORY_STATES } from '../../src/core/vocabulary';
import { receiveAsPage } from '../../src/testApi';
import { TaskGraphController } from '../../src/views/taskGraph/taskGraphController';
import {
  api,
  closeAllEditors,
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
  await waitFor('the status bar to offer US-005', () => ralph.statusBarSnapshot().text === `$(${STORY_STATES.next.codicon}) Ralph: US-005`, 10_000, () => ralph.statusBarSnapshot());
  await waitFor('the GitHub layer to link US-010 to issue 43', () => ralph.storyArtifacts('US-010')?.issue === 43, 10_000, () => ralph.storyArtifacts('US-010'));
  await ralph.whenIdle();
}

/** Resolves at the next change on disk of prd.json that a file watcher reports. */
/**
 * Resolves when prd.json changes on disk. Node's watch (inotify on Linux) reports every write,
 * where VS Code's own watcher does not always report VS Code's own save to an extension; the
 * model also watches with Node, so once this has fired the model has a report to act on.
 */
function nextDiskChange(): { seen: Promise<void>; dispose: () => void } {
  const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, 'prd.json');
  let watcher: fs.FSWatcher | undefined;
  const seen = new Promise<void>((resolve) => {
    watcher = fs.watch(file, () => resolve());
  });
  return { seen, dispose: () => watcher?.close() };
}

suite('one workspace model: prd.json parsed once per change (issue 17)', () => {
  useDemoRestore();

  test('written on disk once: one parse, and the Stories view, diagnostics, task graph, status bar and GitHub layer all show it', async function () {
    // Several views are waited on in turn (each with its own deadline): on a busy machine that is more than the default 30 s.
    this.timeout(90_000);
    const ralph = await api();
    await ralph.whenIdle();
    const before = ralph.prdParses();
    await writePrd(changedDemo());
    await everyViewShowsTheChange(ralph);
    assert.equal(ralph.prdParses() - before, 1, 'prd.json parses for one change on disk');
  });

  test('typed in an editor and saved: one parse, shown from the unsaved editor and after the save', async function () {
    // Several views are waited on in turn (each with its own deadline): on a busy machine that is more than the default 30 s.
    this.timeout(90_000);
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
      // The save reached the disk (the model has a watcher's report of it to act on); then the
      // model is asked whether it has finished acting on it.
      await disk.seen;
      // one turn of the event loop: every callback of that watch event (the model's too) has run
      await new Promise((r) => setImmediate(r));
      await ralph.whenIdle();
    } finally {
      disk.dispose();
    }
    await everyViewShowsTheChange(ralph);
    assert.equal(ralph.prdParses() - before, 1, 'prd.json parses for the typed change once saved (the same text)');
  });
});

suite('one runs.jsonl reader, with the path rule (issue 17)', () => {
  const OUTSIDE_STORY = 'US-009';
  let outside = '';
  let progressBefore: string | undefined;
  const root = (): string => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const progressPath = (): string => path.join(root(), 'progress.txt');
  const ralphDir = (): string => path.join(root(), '.ralph');
  const keptDir = (): string => path.join(path.dirname(root()), `.ralph-kept-${process.pid}`);

  setup(async () => {
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-outside-runs-'));
    const record = { start: '2026-11-20T10:00:00.000Z', end: '2026-11-20T10:05:00.000Z', storyId: OUTSIDE_STORY, storyTitle: 'From outside', agent: 'custom', exitCode: 0, durationMs: 300_000, passingBefore: 4, passingAfter: 5, storyPasses: true, commit: null, complete: false, outcome: 'passed', promptFile: '.ralph/prompts/x.md', iteration: 1, loopId: 'outside' };
    fs.writeFileSync(path.join(outside, 'runs.jsonl'), `${JSON.stringify(record)}\n`);
    // An earlier test's .ralph/ (compaction's archive, prompts) is kept aside and put back after.
    if (fs.existsSync(ralphDir())) {
      fs.renameSync(ralphDir(), keptDir());
    }
    fs.symlinkSync(outside, ralphDir(), 'dir');
    progressBefore = fs.existsSync(progressPath()) ? fs.readFileSync(progressPath(), 'utf8') : undefined;
    await vscode.commands.executeCommand('ralph.refreshRuns');
    await (await api()).runsSnapshot();
  });

  teardown(async () => {
    await closeAllEditors();
    if (fs.lstatSync(ralphDir(), { throwIfNoEntry: false })?.isSymbolicLink()) {
      fs.rmSync(ralphDir());
    }
    if (fs.existsSync(keptDir())) {
      fs.renameSync(keptDir(), ralphDir());
    }
    fs.rmSync(outside, { recursive: true, force: true });
    if (progressBefore !== undefined) {
      fs.writeFileSync(progressPath(), progressBefore);
    }
    await vscode.commands.executeCommand('ralph.refreshRuns');
  });

  test('a .ralph/ symlinked outside the folder: the task graph shows no outcome from its runs.jsonl', async () => {
    const ralph = await api();
    assert.ok(!JSON.stringify(await ralph.runsSnapshot()).includes('From outside'), 'the Runs view (RunsWorkspace) already refuses it');
    // A graph controller made now reads the runs the way the extension's does.
    const demo = analyzePrd(fs.readFileSync(path.join(root(), 'prd.json')));
    const folder = vscode.workspace.workspaceFolders![0];
    const entry = { folder, uri: prdUri(), analysis: demo } as PrdEntry;
    const never = new vscode.EventEmitter<never>();
    const runs = new RunsWorkspace(never.event);
    const log = vscode.window.createOutputChannel('Ralph runs reader test', { log: true });
    const deps = {
      prds: { list: () => [entry], onDidChange: never.event, refreshAll: () => undefined } as unknown as PrdWorkspace,
      runner: { state: { running: false }, onDidChange: never.event, onDidRecord: never.event } as unknown as Runner,
      runs,
      log,
      reveal: async () => undefined,
    };
    const graph = new TaskGraphController(deps);
    try {
      await runs.whenIdle();
      const { replies } = await receiveAsPage(graph, { type: 'ready' });
      const run = replies.find((m) => m.type === 'run');
      assert.ok(run && run.type === 'run');
      assert.deepEqual(run.lastOutcome, [], `outcomes read through the symlink: ${JSON.stringify(run.lastOutcome)}`);
    } finally {
      graph.dispose();
      runs.dispose();
      log.dispose();
      never.dispose();
    }
  });

  test('a .ralph/ symlinked outside the folder: Add Learning does not offer the story its runs.jsonl names as the last run', async () => {
    const learning = `LEARNING-${Date.now()} filed under the story offered first`;
    const added = vscode.commands.executeCommand<boolean | undefined>('ralph.memory.addLearning', undefined, learning, vscode.workspace.workspaceFolders![0].uri);
    let settled = false;
    void Promise.resolve(added).finally(() => (settled = true));
    // Take the story the pick offers first (the one last run, when nothing is selected).
    await waitFor('the story pick to be answered', async () => {
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return settled;
    });
    assert.equal(await added, true);
    const text = fs.readFileSync(progressPath(), 'utf8');
    const at = text.indexOf(learning);
    assert.ok(at > 0, 'the learning was written');
    const headers = [...text.slice(0, at).matchAll(/^## .* - (\S+)\s*$/gm)];
    assert.notEqual(headers.at(-1)?.[1], OUTSIDE_STORY, 'the learning went to the story named by the runs.jsonl outside the workspace');
  });
});
