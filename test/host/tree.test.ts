import * as assert from 'node:assert/strict';
import type { TreeSnapshotNode } from '../../src/api';
import { api, demoText, findStory, isStory, snapshot, storyId, storyState, summarizeTree, tokens, useDemoRestore, waitForTree, writePrd } from './helpers';

/** Pending stories in projected run order (lowest priority number first as stories become ready). */
const RUN_ORDER = ['US-006', 'US-005', 'US-007', 'US-008', 'US-009', 'US-010', 'US-011', 'US-012'];
const DONE = ['US-001', 'US-002', 'US-003', 'US-004'];

function statusOf(node: TreeSnapshotNode): string | undefined {
  return ['next', 'ready', 'blocked', 'done', 'invalid'].find((w) => new RegExp(`\\b${w}\\b`).test(node.description ?? ''));
}

function childrenWith(node: TreeSnapshotNode, token: string): TreeSnapshotNode[] {
  return (node.children ?? []).filter((c) => tokens(c.contextValue).includes(token));
}

suite('Stories tree on the demo prd.json', () => {
  let top: TreeSnapshotNode[] = [];
  let deep: TreeSnapshotNode[] = [];

  suiteSetup(async () => {
    await api();
    top = await snapshot(1);
    deep = await snapshot(2);
  });

  test('top level: 12 stories labelled "<id>: <title>", no problems node', () => {
    assert.equal(top.length, 12, `expected 12 top-level nodes, got ${JSON.stringify(summarizeTree(top), null, 1)}`);
    assert.ok(top.every(isStory), `every top-level node should be a story: ${JSON.stringify(summarizeTree(top), null, 1)}`);
    assert.equal(findStory(top, 'US-006').label, 'US-006 · next · Sort tasks by priority');
    assert.equal(findStory(top, 'US-012').label, 'US-012 · blocked · Document priorities and add an onboarding tip');
  });

  test('order: pending stories in projected run order, then the done ones', () => {
    const ids = top.map(storyId);
    assert.deepEqual(ids.slice(0, RUN_ORDER.length), RUN_ORDER, `top-level order: ${JSON.stringify(ids)}`);
    assert.deepEqual([...ids.slice(RUN_ORDER.length)].sort(), DONE, `done stories should come last: ${JSON.stringify(ids)}`);
  });

  test('US-006 is next, with priority, and its context value says story/next/pending', () => {
    const n = top[0];
    assert.equal(n.label, 'US-006 · next · Sort tasks by priority');
    assert.equal(statusOf(n), 'next', `description: ${n.description}`);
    assert.match(n.description ?? '', /\bP5\b/);
    const t = tokens(n.contextValue);
    for (const want of ['story', 'next', 'pending']) {assert.ok(t.includes(want), `contextValue "${n.contextValue}" lacks "${want}"`);}
  });

  test('statuses and priorities of all stories', () => {
    const expected: Record<string, [string, number]> = {
      'US-001': ['done', 1],
      'US-002': ['done', 2],
      'US-003': ['done', 3],
      'US-004': ['done', 4],
      'US-005': ['ready', 6],
      'US-006': ['next', 5],
      'US-007': ['blocked', 7],
      'US-008': ['ready', 8],
      'US-009': ['blocked', 9],
      'US-010': ['ready', 10],
      'US-011': ['blocked', 11],
      'US-012': ['blocked', 12],
    };
    const wrong: string[] = [];
    for (const [id, [status, prio]] of Object.entries(expected)) {
      const n = findStory(top, id);
      const t = tokens(n.contextValue);
      if (statusOf(n) !== status) {wrong.push(`${id}: description "${n.description}" should say "${status}"`);}
      // The state is in the label, right after the id, so a narrow side bar still shows it.
      if (storyState(n) !== status) {wrong.push(`${id}: label "${n.label}" should say "${status}" after the id`);}
      if (!new RegExp(`\\bP${prio}\\b`).test(n.description ?? '')) {wrong.push(`${id}: description "${n.description}" should contain P${prio}`);}
      if (!t.includes('story') || !t.includes(status)) {wrong.push(`${id}: contextValue "${n.contextValue}" should contain "story" and "${status}"`);}
      if (status === 'done' ? t.includes('pending') : !t.includes('pending')) {
        wrong.push(`${id}: contextValue "${n.contextValue}" ${status === 'done' ? 'must not' : 'should'} contain "pending"`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  test('US-007 has a "blocked by US-006" child', () => {
    const n = findStory(deep, 'US-007');
    const blockedBy = childrenWith(n, 'blockedBy');
    assert.ok(
      blockedBy.some((c) => c.label.startsWith('blocked by US-006')),
      `US-007 children: ${JSON.stringify(summarizeTree(n.children), null, 1)}`,
    );
  });

  test('US-012 is blocked by US-007 and US-011', () => {
    const n = findStory(deep, 'US-012');
    const labels = childrenWith(n, 'blockedBy').map((c) => c.label);
    assert.ok(labels.some((l) => l.startsWith('blocked by US-007')), `blockedBy children: ${JSON.stringify(labels)}`);
    assert.ok(labels.some((l) => l.startsWith('blocked by US-011')), `blockedBy children: ${JSON.stringify(labels)}`);
  });

  test('US-006 shows its acceptance criteria and that it blocks US-007', () => {
    const n = findStory(deep, 'US-006');
    const criteria = childrenWith(n, 'criterion').map((c) => c.label);
    assert.deepEqual(criteria, ['Sort option "Priority" in the sort menu', 'High before medium before low, then by due date', 'Sort order persists per user']);
    const blocks = childrenWith(n, 'blocks').map((c) => c.label);
    assert.ok(blocks.some((l) => l.startsWith('blocks US-007')), `US-006 "blocks" children: ${JSON.stringify(summarizeTree(n.children), null, 1)}`);
  });

  test('story icons are codicon ids', () => {
    const missing = top.filter((n) => !n.icon).map((n) => n.label);
    assert.deepEqual(missing, [], 'stories without an icon');
  });
});

suite('Stories tree while prd.json cannot be read', () => {
  useDemoRestore();

  test('a syntax error: a node says why (with the line), the last good stories are marked stale, none looks current', async () => {
    // A missing comma between two stories, as happens mid-edit.
    const broken = demoText.replace(/\},(\s*\{\s*"id": "US-007")/, '}$1');
    assert.notEqual(broken, demoText);
    await writePrd(broken);
    const nodes = await waitForTree('the problems, then the "cannot be read" node', (n) => tokens(n[0]?.contextValue).includes('problems') && /^prd\.json cannot be read: /.test(n[1]?.label ?? ''));
    assert.match(nodes[1].label, /\(line \d+\)$/, `second node: ${nodes[1].label}`);
    const stories = nodes.filter((n) => n.contextValue === 'staleStory');
    assert.equal(stories.length, 12, `stale stories: ${JSON.stringify(summarizeTree(nodes), null, 1)}`);
    for (const s of stories) {
      assert.equal(storyState(s), 'stale', s.label);
      assert.match(s.description ?? '', /^\(stale — last good read\)/);
      assert.equal(s.icon, 'history');
    }
    assert.deepEqual(nodes.filter(isStory).map((n) => n.label), [], 'no story is shown as current (no run or mark actions on them)');
  });

  test('a story blocked by an empty id (mid-edit) gets a message about the empty entry, not `blocked by ""`', async () => {
    const edited = demoText.replace(/("id": "US-005"[\s\S]*?"blockedBy": \[\s*"US-003")/, '$1, ""');
    assert.notEqual(edited, demoText);
    await writePrd(edited);
    const nodes = await waitForTree('a problems node', (n) => /problem/.test(n[0]?.label ?? '') || /cannot be read/.test(n[0]?.label ?? ''), 3);
    const messages = JSON.stringify(nodes.map((n) => [n.label, (n.children ?? []).map((c) => c.label)]));
    assert.doesNotMatch(messages, /blocked by ""/, messages);
    assert.match(messages, /empty/, messages);
  });
});
