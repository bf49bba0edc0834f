/**
 * The Task Graph on the host: what it posts for the demo, its protocol (malformed messages are
 * rejected and change nothing), the layout kept across status-only changes, and every edit it
 * makes to prd.json as one undoable change, on blockedBy and on an alias key.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { GraphMessage } from '../../src/core/webview/graphProtocol';
import { api, demoText, prdUri, readPrd, undoUntil, useDemoRestore, waitFor, waitForGraph, writePrd } from './helpers';

async function graph(): Promise<GraphMessage> {
  const a = await api();
  await a.whenIdle();
  const g = a.taskGraphSnapshot() as GraphMessage | { type: string };
  assert.equal(g?.type, 'graph', `the task graph should have a graph, got ${JSON.stringify(g)?.slice(0, 200)}`);
  return g as GraphMessage;
}

const node = (g: GraphMessage, id: string): GraphMessage['nodes'][number] => {
  const n = g.nodes.find((x) => x.id === id);
  assert.ok(n, `no node ${id}`);
  return n;
};

async function openPrd(): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(prdUri());
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}

async function send(data: unknown): Promise<{ rejected: boolean; replies: unknown[] }> {
  return (await api()).taskGraphReceive(data);
}

suite('task graph (host)', () => {
  useDemoRestore();

  test('the demo graph: every story and every blockedBy edge, waves and the critical path', async () => {
    const g = await graph();
    assert.equal(g.nodes.length, 12);
    assert.equal(g.edges.length, 15);
    assert.deepEqual(g.waves.map((w) => w.map((i) => g.nodes[i].id)), [['US-006', 'US-005', 'US-008', 'US-010'], ['US-007', 'US-009'], ['US-011'], ['US-012']]);
    assert.deepEqual(g.criticalPath.map((i) => g.nodes[i].id), ['US-008', 'US-009', 'US-011', 'US-012']);
    assert.equal(node(g, 'US-006').state, 'next');
    assert.equal(node(g, 'US-001').state, 'done');
    // A page that says ready gets the graph with its layout (a (re)loaded page has none).
    const replies = (await send({ type: 'ready' })).replies as { type: string; layout?: { x: number[] } }[];
    const first = replies.find((m) => m.type === 'graph');
    assert.ok(first?.layout && first.layout.x.length === 12, 'the graph sent on ready carries the layout');
  });

  test('graph messages carry what the picture shows; a story\'s description and criteria come on request (details)', async () => {
    const g = await graph();
    assert.ok(g.nodes.every((n) => !('description' in n) && !('acceptanceCriteria' in n)), 'no long text in the graph message');
    const r = await send({ type: 'details', requestId: 41, id: 'US-008' });
    assert.equal(r.rejected, false);
    const story = JSON.parse(await readPrd()).userStories.find((x: { id: string }) => x.id === 'US-008');
    assert.deepEqual(r.replies, [{ type: 'details', answers: 41, id: 'US-008', description: story.description, acceptanceCriteria: story.acceptanceCriteria }], 'the answer names the request');
    assert.deepEqual((await send({ type: 'details', id: 'US-999' })).replies, [], 'an unknown story gets no answer');
  });

  test('the protocol rejects malformed messages and applies none of them', async () => {
    const before = await readPrd();
    for (const bad of [
      'ready',
      null,
      { type: 'nope' },
      { type: 'addDependency', story: 5, blocker: 'US-001' },
      { type: 'editStory', story: 'US-005', field: 'passes', value: true },
      { type: 'addStory', title: '' },
      { type: 'copy', format: 'html' },
      { type: 'removeDependency', story: 'US-007' },
      { type: 'details' },
      { type: 'details', id: 42 },
    ]) {
      const r = await send(bad);
      assert.equal(r.rejected, true, `${JSON.stringify(bad)} should be rejected`);
      assert.deepEqual(r.replies, [], `${JSON.stringify(bad)} got answers`);
    }
    assert.equal(await readPrd(), before, 'prd.json changed');
    const ok = await send({ type: 'ready' });
    assert.equal(ok.rejected, false);
    assert.ok(ok.replies.some((m) => (m as { type: string }).type === 'graph'), 'ready is answered with the graph');
  });

  test('a status-only change keeps the layout; a new dependency lays the graph out again', async () => {
    const a = await api();
    await graph();
    const runs = a.taskGraphLayoutRuns();
    const doc = await openPrd();
    await vscode.commands.executeCommand('ralph.story.markPassing', 'US-006');
    const g = await waitForGraph('US-006 to be done in the graph', (x) => node(x, 'US-006').state === 'done');
    assert.equal(a.taskGraphLayoutRuns(), runs, 'marking a story passing must not re-run the layout');
    assert.equal(g.layout, undefined, 'a status-only update carries no layout');
    await undoUntil(doc, demoText, 4);
    await doc.save();
    const r = await send({ type: 'addDependency', story: 'US-010', blocker: 'US-008' });
    assert.equal(r.rejected, false);
    const g2 = await waitForGraph('US-010 to wait on US-008', (x) => node(x, 'US-010').blockedBy.includes('US-008'));
    assert.ok(a.taskGraphLayoutRuns() > runs, 'a topology change re-runs the layout');
    assert.ok(g2.layout, 'the topology change carries the new layout');
  });

  test('add and remove a blockedBy dependency: one minimal change each, undo restores the file', async () => {
    const doc = await openPrd();
    assert.equal(doc.getText(), demoText);
    await send({ type: 'addDependency', story: 'US-010', blocker: 'US-005' });
    await waitFor('the added dependency in the document', () => doc.getText() !== demoText);
    const added = doc.getText();
    assert.deepEqual(JSON.parse(added).userStories[9].blockedBy, ['US-004', 'US-005']);
    assert.equal(added.replace(/,\s*"US-005"(\s*\])/, '$1'), demoText, 'only the new element was added');
    await send({ type: 'removeDependency', story: 'US-007', blocker: 'US-004' });
    await waitFor('the removed dependency in the document', () => !JSON.parse(doc.getText()).userStories[6].blockedBy.includes('US-004'));
    assert.deepEqual(JSON.parse(doc.getText()).userStories[6].blockedBy, ['US-006']);
    await undoUntil(doc, demoText, 4);
    assert.equal(doc.getText(), demoText, 'undo restores the file');
  });

  test('a dependency that would close a cycle is refused with the cycle, and the file is untouched', async () => {
    const r = await send({ type: 'addDependency', story: 'US-005', blocker: 'US-012' });
    const notice = r.replies.find((m) => (m as { type: string }).type === 'notice') as { level: string; message: string; cycle?: string[] } | undefined;
    assert.ok(notice, `no notice in ${JSON.stringify(r.replies)}`);
    assert.equal(notice.level, 'error');
    assert.deepEqual(notice.cycle, ['US-005', 'US-011', 'US-012', 'US-005']);
    assert.match(notice.message, /would close the cycle US-005 → US-011 → US-012 → US-005/);
    assert.equal(await readPrd(), demoText);
  });

  test('edit title, priority, criteria and add a story; undo restores the file', async () => {
    const doc = await openPrd();
    await send({ type: 'editStory', story: 'US-008', field: 'title', value: '<img src=x onerror=alert(1)>' });
    await waitFor('the new title', () => JSON.parse(doc.getText()).userStories[7].title === '<img src=x onerror=alert(1)>');
    await send({ type: 'editStory', story: 'US-008', field: 'priority', value: '42' });
    await waitFor('the new priority', () => JSON.parse(doc.getText()).userStories[7].priority === 42);
    await send({ type: 'editStory', story: 'US-008', field: 'acceptanceCriteria', value: ['One', 'Two'] });
    await waitFor('the new criteria', () => JSON.parse(doc.getText()).userStories[7].acceptanceCriteria.length === 2);
    await send({ type: 'addStory', title: 'Export as CSV', blockedBy: ['US-012'] });
    await waitFor('the new story', () => JSON.parse(doc.getText()).userStories.length === 13);
    const added = JSON.parse(doc.getText()).userStories[12];
    assert.equal(added.id, 'US-013');
    assert.deepEqual(added.blockedBy, ['US-012']);
    await waitForGraph('the new story in the graph', (g) => g.nodes.length === 13 && node(g, 'US-013').blockedBy[0] === 'US-012');
    await undoUntil(doc, demoText, 6);
    assert.equal(doc.getText(), demoText, 'undo restores the file');
  });

  test('on an alias key (dependsOn) the edits keep the story\'s key; undo restores', async () => {
    const aliased = demoText.replace(/("id": "US-010",[\s\S]*?)"blockedBy"/, '$1"dependsOn"');
    assert.notEqual(aliased, demoText);
    await writePrd(aliased);
    await (await api()).whenIdle();
    const doc = await openPrd();
    await waitFor('the document to show the alias', () => doc.getText() === aliased);
    await send({ type: 'addDependency', story: 'US-010', blocker: 'US-005' });
    await waitFor('the dependency added', () => doc.getText() !== aliased);
    const s = JSON.parse(doc.getText()).userStories[9];
    assert.deepEqual(s.dependsOn, ['US-004', 'US-005']);
    assert.equal(s.blockedBy, undefined, 'no blockedBy key was added');
    await send({ type: 'removeDependency', story: 'US-010', blocker: 'US-004' });
    await waitFor('the dependency removed', () => JSON.parse(doc.getText()).userStories[9].dependsOn.length === 1);
    assert.deepEqual(JSON.parse(doc.getText()).userStories[9].dependsOn, ['US-005']);
    await undoUntil(doc, aliased);
    assert.equal(doc.getText(), aliased, 'undo restores the file');
    await doc.save();
  });

  test('an invalid prd.json keeps the last good picture, marked stale, with what is wrong and where', async () => {
    await graph();
    await writePrd(demoText.replace('"US-005",', '"US-005"'));
    const g = await waitForGraph('a stale graph', (x) => x.stale);
    assert.equal(g.nodes.length, 12, 'the last good picture is kept');
    assert.ok(g.problems.length > 0 && g.problems[0].line > 1, `problems: ${JSON.stringify(g.problems)}`);
    assert.match(g.problems[0].message, /JSON syntax error/);
  });

  test('a story whose id is too long for the page is drawn under a key; what the page posts with the key edits that story', async () => {
    const longId = `US-${'7'.repeat(800)}`;
    const data = JSON.parse(demoText);
    data.userStories[7].id = longId;
    data.userStories[8].blockedBy = [longId];
    await writePrd(`${JSON.stringify(data, null, 2)}\n`);
    const g = await waitForGraph('the long id under a key', (x) => x.nodes.some((n) => n.id.startsWith('US-777') && n.id.includes('(803 characters')));
    const key = g.nodes.find((n) => n.id.startsWith('US-777'))?.id ?? '';
    assert.ok(key.length <= 500, 'the key fits the page');
    assert.deepEqual(node(g, data.userStories[8].id).blockedBy, [key], 'dependencies name it by the same key');
    const details = await send({ type: 'details', id: key });
    assert.equal((details.replies[0] as { id?: string })?.id, key, 'the details answer the key');
    await send({ type: 'editStory', story: key, field: 'title', value: 'Renamed through its key' });
    await waitFor('the title written to the long-id story', async () => JSON.parse(await readPrd()).userStories[7].title === 'Renamed through its key');
    await send({ type: 'removeDependency', story: data.userStories[8].id, blocker: key });
    await waitFor('the dependency on it removed', async () => JSON.parse(await readPrd()).userStories[8].blockedBy.length === 0);
    assert.equal(JSON.parse(await readPrd()).userStories[7].id, longId, 'the id itself is untouched');
  });
});
