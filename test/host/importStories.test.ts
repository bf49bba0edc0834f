/**
 * Import Stories… (issue 22) in the real extension host, on the demo workspace: a Backlog.md
 * folder (real files, test/fixtures/import) imported from the Explorer's context menu argument;
 * the new prd.json is shown as a diff while Apply / Cancel is asked; Cancel changes nothing; Apply
 * edits prd.json and the Stories view shows the imported stories beside the demo's.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import * as os from 'node:os';
import { answering, closeAllEditors, expectCommandError, extension, findStory, isStory, readPrd, snapshot, waitForTree, workspaceFolder, writePrd } from './helpers';

const COMMAND = 'ralph.importStories';
const IMPORTED = ['BACK-217', 'BACK-217.03', 'BACK-458'];

suite('Import Stories…', () => {
  const backlog = (): string => path.join(workspaceFolder().uri.fsPath, 'backlog');
  let original = '';

  suiteSetup(async () => {
    original = await readPrd();
    assert.ok(!fs.existsSync(backlog()), 'the demo has no backlog/ folder');
    fs.cpSync(path.join(extension().extensionUri.fsPath, 'test', 'fixtures', 'import', 'backlog', 'backlog'), backlog(), { recursive: true });
  });

  suiteTeardown(async () => {
    await closeAllEditors();
    fs.rmSync(backlog(), { recursive: true, force: true });
    await writePrd(original);
    await waitForTree('the demo stories back', (n) => n.filter(isStory).length === 12 && !n.some((x) => IMPORTED.includes(x.label.split(' · ')[0])));
  });

  /** Runs the command on the backlog folder (as the Explorer's context menu passes it) answering `answer`. */
  function run(answer: string | undefined): Promise<{ questions: { message: string; choices: readonly string[] }[] }> {
    return answering(answer, () => Promise.resolve(vscode.commands.executeCommand(COMMAND, vscode.Uri.file(backlog()))));
  }

  test('shows the new prd.json as a diff; Cancel changes nothing; Apply adds the stories and the Stories view shows them', async () => {
    const before = await readPrd();
    const diffOpen: boolean[] = [];
    const cancelled = await answering(undefined, () => {
      const watch = vscode.window.tabGroups.onDidChangeTabs(() => diffOpen.push(vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'ralph-proposed' && t.input.modified.path.endsWith('/prd.json')))));
      return Promise.resolve(vscode.commands.executeCommand(COMMAND, vscode.Uri.file(backlog()))).finally(() => watch.dispose());
    });
    assert.equal(cancelled.questions.length, 1);
    assert.match(cancelled.questions[0].message, /^Import 3 stories from backlog\/tasks \(backlog\) into prd\.json: 3 new, 0 updated, 0 unchanged\.$/);
    assert.deepEqual(cancelled.questions[0].choices, ['Apply']);
    assert.ok(diffOpen.includes(true), 'the diff of prd.json was open');
    assert.equal(await readPrd(), before, 'Cancel changed nothing');

    const applied = await run('Apply');
    assert.equal(applied.questions.length, 1);
    const tree = await waitForTree('the imported stories in the Stories view', (n) => IMPORTED.every((id) => n.some((x) => x.label.startsWith(`${id} · `))) && n.filter(isStory).length === 15);
    // BACK-217.03 is ready; BACK-217 waits on it (its parent) and on task-213, which is not in the folder
    assert.match(findStory(tree, 'BACK-217').label, /^BACK-217 · (blocked|invalid)/);
    const prd = JSON.parse(await readPrd()) as { userStories: { id: string; source?: { format: string } }[] };
    assert.deepEqual(prd.userStories.slice(-3).map((s) => [s.id, s.source?.format]), IMPORTED.map((id) => [id, 'backlog']));
    assert.ok((await readPrd()).startsWith(before.slice(0, before.lastIndexOf('}', before.lastIndexOf(']')))), 'the demo stories are untouched, byte for byte');

    // Importing the same folder again: nothing to change, nothing asked.
    const again = await run('Apply');
    assert.equal(again.questions.length, 0);
    assert.equal((await snapshot()).filter(isStory).length, 15);
  });

  test('a ralph.prdPath leading outside the workspace is refused with the path rule\'s message, and nothing is written there', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-import-outside-'));
    const c = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
    const victim = path.join(outside, 'victim.json');
    await c.update('prdPath', path.relative(workspaceFolder().uri.fsPath, victim), vscode.ConfigurationTarget.Workspace);
    try {
      const message = await expectCommandError(COMMAND, () => answering('Apply', () => Promise.resolve(vscode.commands.executeCommand(COMMAND, vscode.Uri.file(backlog())))));
      assert.match(message, /ralph\.prdPath ".*victim\.json" points outside the workspace folder/);
      assert.equal(fs.existsSync(victim), false);
    } finally {
      await c.update('prdPath', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
