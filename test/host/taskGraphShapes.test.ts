/**
 * Editing from the task graph on prd.json files that keep their stories somewhere other than a
 * root "userStories" (issue 10, Editing): {"stories": […]} and a top-level array. Each edit goes
 * through the graph protocol as the page sends it, lands inside the story in the editor's document
 * as one undoable change, and undo gives the file back byte for byte.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { GraphMessage } from '../../src/core/webview/graphProtocol';
import { api, demoText, prdUri, readPrdBytes, undoUntil, useDemoRestore, waitFor, writePrd } from './helpers';

async function send(data: unknown): Promise<{ rejected: boolean; replies: unknown[] }> {
  return (await api()).taskGraphReceive(data);
}

type Notice = { type: 'notice'; level: string; message: string; cycle?: string[] };

function noticeOf(r: { rejected: boolean; replies: unknown[] }): Notice {
  assert.equal(r.rejected, false, 'the message is accepted');
  const n = r.replies.find((m) => (m as { type: string }).type === 'notice') as Notice | undefined;
  assert.ok(n, `no notice in ${JSON.stringify(r.replies)}`);
  return n;
}

async function waitForGraph(what: string, ok: (g: GraphMessage) => boolean): Promise<GraphMessage> {
  const a = await api();
  return waitFor(what, () => {
    const g = a.taskGraphSnapshot() as GraphMessage;
    return g?.type === 'graph' && !g.stale && ok(g) ? g : undefined;
  }, 10_000, () => {
    const g = a.taskGraphSnapshot() as GraphMessage;
    return g?.type === 'graph' ? g.nodes.map((n) => `${n.id}:[${n.blockedBy.join(',')}]`) : g;
  });
}

const blockersOf = (g: GraphMessage, id: string): string[] => g.nodes.find((n) => n.id === id)?.blockedBy ?? [];

/** Writes `text` as prd.json, opens it, and waits until the graph shows its stories. */
async function usePrd(text: string, stories: number): Promise<vscode.TextDocument> {
  await writePrd(text);
  await (await api()).whenIdle();
  const doc = await vscode.workspace.openTextDocument(prdUri());
  await vscode.window.showTextDocument(doc, { preview: false });
  await waitFor('the document to show the new prd.json', () => doc.getText() === text);
  await waitForGraph(`the graph of the new prd.json (${stories} stories)`, (g) => g.nodes.length === stories);
  return doc;
}

/** Undoes until the document is `text`, saves it, and checks the file on disk is `text` byte for byte. */
async function undoToFile(doc: vscode.TextDocument, text: string, maxUndos: number): Promise<void> {
  await undoUntil(doc, text, maxUndos);
  assert.equal(doc.getText(), text, 'undo restores the text');
  await doc.save();
  assert.ok(Buffer.from(await readPrdBytes()).equals(Buffer.from(text, 'utf8')), 'the file on disk is the original, byte for byte');
}

suite('task graph edits on other prd shapes (host)', () => {
  useDemoRestore();

  test('{"stories": […]}: add and remove a dependency through the graph protocol; a cycle is refused; undo restores the file byte for byte', async () => {
    const shaped = demoText.replace('"userStories"', '"stories"');
    assert.notEqual(shaped, demoText);
    const doc = await usePrd(shaped, 12);

    const added = noticeOf(await send({ type: 'addDependency', story: 'US-010', blocker: 'US-005' }));
    assert.equal(added.level, 'info', added.message);
    await waitFor('the added dependency in the document', () => doc.getText() !== shaped);
    assert.deepEqual(JSON.parse(doc.getText()).stories[9].blockedBy, ['US-004', 'US-005']);
    assert.equal(doc.getText().replace(/,\s*"US-005"(\s*\])/, '$1'), shaped, 'only the new element was added');
    await waitForGraph('US-010 to wait on US-005 in the graph', (g) => blockersOf(g, 'US-010').includes('US-005'));

    const removed = noticeOf(await send({ type: 'removeDependency', story: 'US-007', blocker: 'US-004' }));
    assert.equal(removed.level, 'info', removed.message);
    await waitFor('the removed dependency in the document', () => !(JSON.parse(doc.getText()).stories[6].blockedBy as string[]).includes('US-004'));
    assert.deepEqual(JSON.parse(doc.getText()).stories[6].blockedBy, ['US-006']);
    await waitForGraph('US-007 no longer waiting on US-004 in the graph', (g) => !blockersOf(g, 'US-007').includes('US-004'));

    const before = doc.getText();
    const refused = noticeOf(await send({ type: 'addDependency', story: 'US-005', blocker: 'US-012' }));
    assert.equal(refused.level, 'error');
    assert.deepEqual(refused.cycle, ['US-005', 'US-011', 'US-012', 'US-005']);
    assert.equal(doc.getText(), before, 'a refused edit changes nothing');

    await undoToFile(doc, shaped, 4);
  });

  test('a top-level array: edit a title and add a story through the graph protocol; undo restores the file byte for byte', async () => {
    const list = `${JSON.stringify((JSON.parse(demoText) as { userStories: unknown[] }).userStories, null, 2)}\n`;
    const doc = await usePrd(list, 12);

    const titled = noticeOf(await send({ type: 'editStory', story: 'US-008', field: 'title', value: 'Renamed <b>story</b>' }));
    assert.equal(titled.level, 'info', titled.message);
    await waitFor('the new title in the document', () => (JSON.parse(doc.getText()) as { title: string }[])[7].title === 'Renamed <b>story</b>');

    const story = noticeOf(await send({ type: 'addStory', title: 'Export as CSV', blockedBy: ['US-012'] }));
    assert.equal(story.level, 'info', story.message);
    await waitFor('the new story in the document', () => (JSON.parse(doc.getText()) as unknown[]).length === 13);
    const last = (JSON.parse(doc.getText()) as { id: string; blockedBy: string[] }[])[12];
    assert.equal(last.id, 'US-013');
    assert.deepEqual(last.blockedBy, ['US-012']);
    await waitForGraph('the new story in the graph', (g) => g.nodes.length === 13 && blockersOf(g, 'US-013')[0] === 'US-012');

    await undoToFile(doc, list, 4);
  });
});
