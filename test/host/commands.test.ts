/**
 * Commands as the workbench calls them: with the arguments a view passes from its title, a row or
 * a context menu; their errors reach the tests; Preview Prompt is a read-only document; every
 * command that writes files, runs git or starts a process is refused in Restricted Mode before its
 * handler runs (the registrar, from the needs the command declares).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { answering, api, closeAllEditors, expectCommandError, prdUri, readPrdBytes, takeCommandErrors, useDemoRestore, waitFor, workspaceFolder } from './helpers';

suite('commands called the way views call them', () => {
  useDemoRestore();

  test('a command error is recorded, with the message the user saw, for the tests to see', async () => {
    // No story is selected and "NOPE" is not a story: the handler throws; the user sees a message.
    const message = await expectCommandError('ralph.story.open', () => vscode.commands.executeCommand('ralph.story.open', 'NOPE'));
    assert.equal(message, 'There is no story "NOPE" in prd.json.');
  });

  test('Preview Prompt and Open prd.json accept a view node, the selection array or a WorkspaceFolder as argument', async () => {
    const folder = workspaceFolder();
    // What the Runs view passes from its title when a run row is focused: the node, then the selection.
    const runNode = { kind: 'run', folder, run: { storyId: 'US-004' }, index: 0 };
    for (const args of [[runNode, [runNode]], [[runNode]], [folder], [{ unrelated: true }, 42]]) {
      await closeAllEditors();
      const text = await vscode.commands.executeCommand<string>('ralph.previewPrompt', ...args);
      assert.match(text ?? '', /US-006/, `the prompt of the next story (US-006) for arguments ${JSON.stringify(args, (k, v) => (k === 'folder' ? folder.name : v))}`);
      await vscode.commands.executeCommand('ralph.openPrd', ...args);
      await waitFor('prd.json in the active editor', () => vscode.window.activeTextEditor?.document.uri.toString() === prdUri().toString());
    }
    assert.deepEqual(await takeCommandErrors(), []);
  });

  test('Preview Prompt shows a read-only markdown document holding the prompt: nothing to save', async () => {
    await closeAllEditors();
    const text = await vscode.commands.executeCommand<string>('ralph.previewPrompt', 'US-006');
    assert.ok(text && text.includes('US-006'), 'the prompt names the story');
    const editor = await waitFor('the preview in the active editor', () => vscode.window.activeTextEditor);
    const doc = editor.document;
    assert.equal(doc.getText(), text, 'the document shows the prompt');
    assert.equal(doc.languageId, 'markdown');
    assert.equal(doc.isUntitled, false, 'not an Untitled document');
    assert.equal(doc.isDirty, false, 'closing it asks nothing');
    assert.equal(vscode.workspace.textDocuments.filter((d) => d.isUntitled).length, 0, 'no Untitled document was opened');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await waitFor('the preview to close without a question', () => !vscode.window.visibleTextEditors.some((e) => e.document === doc));
  });
});

suite('Restricted Mode: the registrar refuses what writes, runs git or starts a process', () => {
  useDemoRestore();

  teardown(async () => {
    (await api()).simulateRestrictedMode(false);
  });

  test('each such command is refused with a clear message, before its handler, and nothing changes', async () => {
    const root = workspaceFolder().uri.fsPath;
    const progressBefore = fs.readFileSync(path.join(root, 'progress.txt'));
    const prdBefore = await readPrdBytes();
    const a = await api();
    a.simulateRestrictedMode(true);
    const calls: [string, ...unknown[]][] = [
      ['ralph.runNext'],
      ['ralph.story.run', 'US-006'],
      ['ralph.startLoop', 1],
      ['ralph.story.markPassing', 'US-006'],
      ['ralph.story.markNotPassing', 'US-001'],
      ['ralph.removeBlockedBy'],
      ['ralph.breakCycle'],
      ['ralph.createPrd'],
      ['ralph.memory.addPattern', 'A pattern', workspaceFolder().uri],
      ['ralph.memory.addLearning', 'US-006', 'A learning', workspaceFolder().uri],
      ['ralph.memory.newEntry', 'US-006', 'A summary', workspaceFolder().uri],
      ['ralph.agents.addNote', prdUri(), 'Gotchas', 'A note'],
      ['ralph.memory.compact'],
      ['ralph.memory.undoCompaction', {}],
      ['ralph.pin.generate'],
    ];
    const { questions } = await answering(undefined, async () => {
      for (const [command, ...args] of calls) {
        const message = await expectCommandError(command, () => vscode.commands.executeCommand(command, ...args));
        assert.match(message, /needs a trusted workspace/, `${command}: ${message}`);
      }
    });
    assert.deepEqual(questions, [], 'no handler ran as far as its question');
    assert.equal(a.runnerState().running, false, 'no agent started');
    assert.deepEqual(vscode.window.terminals.filter((t) => t.name.startsWith('Ralph:')).map((t) => t.name), [], 'no agent terminal');
    assert.ok(Buffer.from(await readPrdBytes()).equals(Buffer.from(prdBefore)), 'prd.json unchanged');
    assert.ok(fs.readFileSync(path.join(root, 'progress.txt')).equals(progressBefore), 'progress.txt unchanged');
    assert.equal(fs.existsSync(path.join(root, 'AGENTS.md')) && fs.readFileSync(path.join(root, 'AGENTS.md'), 'utf8').includes('A note'), false, 'AGENTS.md unchanged');

    // Reading stays possible: Preview Prompt still works.
    const text = await vscode.commands.executeCommand<string>('ralph.previewPrompt', 'US-006');
    assert.match(text ?? '', /US-006/);
  });
});
