import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import {
  demoBytes,
  demoText,
  prdUri,
  readPrdBytes,
  storyId,
  storyLines,
  summarizeTree,
  tokens,
  undoUntil,
  useDemoRestore,
  waitFor,
  waitForTree,
} from './helpers';

/** Offset of the `passes` value (true/false literal) of story `id` in `text`. */
function passesValue(text: string, id: string): { offset: number; value: string } {
  const { start } = storyLines(text, id);
  const startOffset = text.split('\n').slice(0, start).join('\n').length;
  const m = /"passes"\s*:\s*(true|false)/.exec(text.slice(startOffset));
  assert.ok(m, `no "passes" in story ${id}`);
  return { offset: startOffset + m.index + m[0].length - m[1].length, value: m[1] };
}

/** The one-token change expected from marking story `id`: `from` replaced by `to`. */
function expectedAfter(text: string, id: string, from: 'true' | 'false', to: 'true' | 'false'): string {
  const v = passesValue(text, id);
  assert.equal(v.value, from, `story ${id} should have "passes": ${from} in the demo`);
  return text.slice(0, v.offset) + to + text.slice(v.offset + from.length);
}

/** Where two texts first differ, for readable failures. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) {i++;}
  return `at offset ${i}: expected …${JSON.stringify(a.slice(Math.max(0, i - 30), i + 30))}…, got …${JSON.stringify(b.slice(Math.max(0, i - 30), i + 30))}…`;
}

async function openPrdEditor(): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(prdUri());
  return vscode.window.showTextDocument(doc, { preview: false });
}


suite('editing prd.json from the tree (mark passing / not passing, undo)', () => {
  useDemoRestore();

  test('mark US-006 as passing changes only its "passes" token; undo restores the exact bytes', async () => {
    const editor = await openPrdEditor();
    const doc = editor.document;
    assert.equal(doc.getText(), demoText, 'the open document should equal the file');
    const want = expectedAfter(demoText, 'US-006', 'false', 'true');

    await vscode.commands.executeCommand('ralph.story.markPassing', 'US-006');
    await waitFor('the mark-as-passing edit to reach the open prd.json document', () => doc.getText() !== demoText, 5_000);
    const after = doc.getText();
    assert.ok(after === want, `the edit should change exactly one token ("passes": false → true in US-006), ${firstDifference(want, after)}`);

    // The tree follows: US-006 is done, US-005 is next, US-007 no longer waits on it.
    const tree = await waitForTree('US-005 to become next after US-006 passes', (n) => storyId(n[0]) === 'US-005', 1);
    assert.match(tree[0].description ?? '', /\bnext\b/);
    const us006 = tree.find((n) => storyId(n) === 'US-006');
    assert.ok(us006 && tokens(us006.contextValue).includes('done'), `US-006 after marking: ${JSON.stringify(summarizeTree(tree), null, 1)}`);
    const us007 = tree.find((n) => storyId(n) === 'US-007');
    assert.match(us007?.description ?? '', /\bready\b/, 'US-007 should be ready once US-006 passes (US-004 already passes)');

    // Undo in the editor restores the original text exactly.
    await undoUntil(doc, demoText);
    assert.equal(doc.getText(), demoText, 'undo did not restore the original text');
    if (doc.isDirty) {await doc.save();}
    const bytes = await readPrdBytes();
    assert.ok(Buffer.compare(Buffer.from(bytes), Buffer.from(demoBytes)) === 0, 'after undo (and save) prd.json on disk is not byte-identical to the original');
    await waitForTree('US-006 to be next again after undo', (n) => storyId(n[0]) === 'US-006', 1);
  });

  test('mark US-001 as not passing changes only its "passes" token; undo restores it', async () => {
    const editor = await openPrdEditor();
    const doc = editor.document;
    const want = expectedAfter(demoText, 'US-001', 'true', 'false');
    await vscode.commands.executeCommand('ralph.story.markNotPassing', 'US-001');
    await waitFor('the mark-as-not-passing edit to reach the open prd.json document', () => doc.getText() !== demoText, 5_000);
    assert.ok(doc.getText() === want, `only US-001's "passes" should change, ${firstDifference(want, doc.getText())}`);
    // US-001 is now pending and first in run order (priority 1, no blockers).
    await waitForTree('US-001 to become next', (n) => storyId(n[0]) === 'US-001');
    await undoUntil(doc, demoText);
    assert.equal(doc.getText(), demoText, 'undo did not restore the original text');
  });

  test('marking works without an open editor and leaves the file formatted as before', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const want = expectedAfter(demoText, 'US-010', 'false', 'true');
    await vscode.commands.executeCommand('ralph.story.markPassing', 'US-010');
    const text = await waitFor(
      'US-010 to pass (document or disk)',
      async () => {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === prdUri().toString());
        const t = doc ? doc.getText() : new TextDecoder().decode(await readPrdBytes());
        return t !== demoText ? t : undefined;
      },
      5_000,
    );
    assert.ok(text === want, `only US-010's "passes" should change, ${firstDifference(want, text)}`);
  });
});

suite('navigation commands', () => {
  useDemoRestore();

  test('ralph.openPrd opens prd.json', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('ralph.openPrd');
    const ed = await waitFor('an active editor', () => vscode.window.activeTextEditor);
    assert.equal(ed.document.uri.toString(), prdUri().toString());
  });

  test('ralph.story.open "US-007" shows the US-007 object in prd.json', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('ralph.story.open', 'US-007');
    const ed = await waitFor('an active editor on prd.json', () =>
      vscode.window.activeTextEditor?.document.uri.toString() === prdUri().toString() ? vscode.window.activeTextEditor : undefined,
    );
    const { start, end } = storyLines(demoText, 'US-007');
    const line = ed.selection.active.line;
    assert.ok(line >= start && line <= end, `cursor on line ${line + 1}, expected within US-007 (lines ${start + 1}-${end + 1})`);
  });

  test('ralph.showNextStory names and reveals the next story; ralph.refresh re-reads prd.json', async () => {
    // (A command error fails the test through the root afterEach hook in index.ts.)
    assert.equal(await vscode.commands.executeCommand('ralph.showNextStory'), 'US-006');
    // prd.json changed while the extension is not told (a refresh reads the file itself).
    const changed = demoText.replace('"title": "Sort tasks by priority"', '"title": "Sort tasks by priority, refreshed"');
    assert.notEqual(changed, demoText);
    await vscode.workspace.fs.writeFile(prdUri(), new TextEncoder().encode(changed));
    await vscode.commands.executeCommand('ralph.refresh');
    await waitForTree('the refreshed title of US-006', (n) => n[0]?.label === 'US-006 · next · Sort tasks by priority, refreshed');
  });

  test('deleting prd.json empties the tree; restoring it brings the stories back', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(prdUri());
    await waitForTree('an empty Stories tree without prd.json', (n) => n.length === 0);
    // useDemoRestore's teardown writes the file back and waits for the 12 stories.
  });
});
