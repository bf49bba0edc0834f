/**
 * Story ids named like Object.prototype members (`constructor`, `__proto__`, `toString`,
 * `hasOwnProperty`, `valueOf`) in the Stories view and the Task Graph (issue 16 item 14).
 */
import * as assert from 'node:assert/strict';
import type { TreeSnapshotNode } from '../../src/api';
import { api, findStory, readPrd, storyState, summarizeTree, useDemoRestore, waitForGraph, waitForTree, writePrd } from './helpers';

const STORIES = [
  { id: 'constructor', priority: 1, passes: false },
  { id: '__proto__', priority: 2, passes: false, blockedBy: ['constructor'] },
  { id: 'toString', priority: 3, passes: true },
  { id: 'hasOwnProperty', priority: 4, passes: false, blockedBy: ['toString', '__proto__'] },
  { id: 'valueOf', priority: 0, passes: false, blockedBy: ['toString'] },
].map((s) => ({ ...s, title: `Story ${s.id}`, description: `About ${s.id}.`, acceptanceCriteria: [`${s.id} works`] }));

const TEXT = `${JSON.stringify({ projectName: 'Hostile', branchName: 'ralph/hostile', description: 'Ids from Object.prototype.', userStories: STORIES }, null, 2)}\n`;

const STATES: [string, string][] = [
  ['constructor', 'ready'],
  ['__proto__', 'blocked'],
  ['toString', 'done'],
  ['hasOwnProperty', 'blocked'],
  ['valueOf', 'next'],
];

function childLabels(n: TreeSnapshotNode): string[] {
  return (n.children ?? []).map((c) => `${c.label}${c.description ? ` (${c.description})` : ''}`);
}

suite('story ids named like Object.prototype members (issue 16 item 14)', () => {
  useDemoRestore();

  test('the Stories tree shows each story with its state and its links; the task graph has every node', async () => {
    await writePrd(TEXT);
    const nodes = await waitForTree('the five stories', (n) => n.length === 5 && n.some((x) => storyState(x) === 'next'), 2);
    const tree = JSON.stringify(summarizeTree(nodes), null, 1);
    assert.deepEqual(STATES.map(([id]) => [id, storyState(findStory(nodes, id))]), STATES, tree);
    for (const n of nodes) {
      assert.doesNotMatch(JSON.stringify([n.label, n.description, n.tooltip, childLabels(n)]), /function Object|native code|\[object Object\]|undefined/, tree);
    }
    const proto = childLabels(findStory(nodes, '__proto__'));
    assert.ok(proto.includes('blocked by constructor (Story constructor · not passing yet)'), JSON.stringify(proto));
    assert.ok(proto.some((l) => l.startsWith('blocks hasOwnProperty (Story hasOwnProperty')), JSON.stringify(proto));
    const has = childLabels(findStory(nodes, 'hasOwnProperty'));
    assert.ok(has.includes('blocked by toString (Story toString · done)'), JSON.stringify(has));

    const g = await waitForGraph('the five stories in the task graph', (x) => x.nodes.length === 5);
    assert.deepEqual(
      g.nodes.map((n) => [n.id, n.state]),
      STATES,
    );
    assert.deepEqual(g.waves.map((w) => w.map((i) => g.nodes[i].id)), [['valueOf', 'constructor'], ['__proto__'], ['hasOwnProperty']]);
  });

  test('the task graph answers details for, and adds a dependency between, such stories', async () => {
    await writePrd(TEXT);
    await waitForGraph('the five stories in the task graph', (x) => x.nodes.length === 5);
    const a = await api();
    const details = await a.taskGraphReceive({ type: 'details', requestId: 3, id: '__proto__' });
    assert.deepEqual(details.replies, [{ type: 'details', answers: 3, id: '__proto__', description: 'About __proto__.', acceptanceCriteria: ['__proto__ works'] }]);
    const r = await a.taskGraphReceive({ type: 'addDependency', story: 'valueOf', blocker: 'constructor' });
    assert.equal(r.rejected, false);
    const g = await waitForGraph('valueOf to wait on constructor', (x) => x.nodes.find((n) => n.id === 'valueOf')?.blockedBy.includes('constructor') === true);
    assert.equal(g.nodes.find((n) => n.id === 'valueOf')?.state, 'blocked');
    const story = (JSON.parse(await readPrd()) as { userStories: { id: string; blockedBy?: string[] }[] }).userStories.find((s) => s.id === 'valueOf');
    assert.deepEqual(story?.blockedBy, ['toString', 'constructor']);
  });
});
