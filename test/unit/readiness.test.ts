import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parsePrd } from '../../src/core/prd/document';
import { computeReadiness } from '../../src/core/prd/readiness';
import { analyze, makePrd, type StoryInput } from './helpers';

const readiness = (stories: StoryInput[]) => analyze(makePrd(stories)).readiness;
const ids = (xs: readonly { story: { id: string } }[]): string[] => xs.map((s) => s.story.id);

describe('readiness', () => {
  it('classifies stories as done, ready or blocked, with what each waits on', () => {
    const r = readiness([
      { id: 'A', passes: true },
      { id: 'B', blockedBy: ['A'] },
      { id: 'C', blockedBy: ['A', 'B'] },
      { id: 'D', blockedBy: ['C', 'B', 'C'] },
    ]);
    assert.deepEqual(
      r.states.map((s) => [s.story.id, s.status, s.waitingOn]),
      [
        ['A', 'done', []],
        ['B', 'ready', []],
        ['C', 'blocked', ['B']],
        ['D', 'blocked', ['C', 'B']],
      ],
    );
    assert.deepEqual(r.blocked, [
      { id: 'C', waitingOn: ['B'] },
      { id: 'D', waitingOn: ['C', 'B'] },
    ]);
    assert.deepEqual(r.counts, { total: 4, done: 1, ready: 1, blocked: 2 });
    assert.deepEqual(
      r.states.map((s) => s.blocks),
      [['B', 'C'], ['C', 'D'], ['D'], []],
    );
    assert.equal(r.state, 'ready');
  });

  it('picks the ready story with the lowest priority', () => {
    const r = readiness([
      { id: 'A', priority: 3 },
      { id: 'B', priority: 1, blockedBy: ['A'] }, // lowest, but blocked
      { id: 'C', priority: 2 },
      { id: 'D', priority: -1, passes: true },
    ]);
    assert.equal(r.next?.story.id, 'C');
    assert.equal(r.next?.isNext, true);
    assert.deepEqual(
      r.states.filter((s) => s.isNext).map((s) => s.story.id),
      ['C'],
    );
    assert.deepEqual(ids(r.ready), ['C', 'A']);
  });

  it('breaks priority ties by file order', () => {
    const r = readiness([
      { id: 'Z', priority: 2 },
      { id: 'Y', priority: 1 },
      { id: 'X', priority: 1 },
    ]);
    assert.equal(r.next?.story.id, 'Y');
    assert.deepEqual(ids(r.ready), ['Y', 'X', 'Z']);
  });

  it('accepts fractional and negative priorities', () => {
    const r = readiness([
      { id: 'A', priority: 1.5 },
      { id: 'B', priority: -2 },
      { id: 'C', priority: 1.25 },
    ]);
    assert.deepEqual(ids(r.ready), ['B', 'C', 'A']);
  });

  it('runs a story without a priority last', () => {
    const a = analyze(makePrd([{ id: 'A', priority: null }, { id: 'B', priority: 100 }, { id: 'C', priority: null }]));
    assert.deepEqual(
      a.problems.map((p) => [p.code, p.severity]),
      [['priority', 'warning']],
    );
    assert.match(a.problems[0].message, /2 stories have no "priority" \(A first\): they run after the stories that have one, in file order/);
    assert.equal(a.readable, true);
    assert.equal(a.doc.stories[0].priority, Number.POSITIVE_INFINITY);
    assert.equal(a.readiness.next?.story.id, 'B');
    assert.deepEqual(ids(a.readiness.ready), ['B', 'A', 'C']);
  });

  it('is complete when every story passes', () => {
    const r = readiness([
      { id: 'A', passes: true },
      { id: 'B', passes: true, blockedBy: ['A'] },
    ]);
    assert.equal(r.state, 'complete');
    assert.equal(r.next, undefined);
    assert.deepEqual(r.ready, []);
    assert.deepEqual(r.blocked, []);
    assert.deepEqual(r.explanation, []);
  });

  it('is empty when there are no stories', () => {
    const r = readiness([]);
    assert.equal(r.state, 'empty');
    assert.equal(r.next, undefined);
    assert.deepEqual(r.order, []);
    assert.deepEqual(r.counts, { total: 0, done: 0, ready: 0, blocked: 0 });
  });

  describe('when nothing is ready', () => {
    it('explains a cycle and the stories stuck behind it', () => {
      const r = readiness([
        { id: 'A', blockedBy: ['B'] },
        { id: 'B', blockedBy: ['A'] },
        { id: 'C', blockedBy: ['B'] },
        { id: 'D', blockedBy: ['C'] },
      ]);
      assert.equal(r.state, 'blocked');
      assert.equal(r.next, undefined);
      assert.deepEqual(r.explanation, [
        'A → B → A is a dependency cycle: none of these stories can become ready until one blockedBy entry is removed.',
        'C waits on B, which can never become ready.',
        'D waits on C, which can never become ready.',
      ]);
      assert.ok(r.states.every((s) => s.runIndex === undefined));
    });

    it('explains an unknown id', () => {
      const r = readiness([
        { id: 'A', blockedBy: ['US-404'] },
        { id: 'B', blockedBy: ['A', 'NOPE'] },
      ]);
      assert.equal(r.state, 'blocked');
      assert.deepEqual(r.explanation, [
        'A waits on "US-404", which is not a story in prd.json.',
        'B waits on "NOPE", which is not a story in prd.json.',
      ]);
      assert.deepEqual(r.blocked, [
        { id: 'A', waitingOn: ['US-404'] },
        { id: 'B', waitingOn: ['A', 'NOPE'] },
      ]);
    });

    it('explains a self-dependency', () => {
      const r = readiness([{ id: 'A', blockedBy: ['A'] }, { id: 'B', blockedBy: ['A'] }]);
      assert.equal(r.state, 'blocked');
      assert.deepEqual(r.explanation, ['A is blocked by itself.', 'B waits on A, which can never become ready.']);
    });

    it('explains only what is really stuck while other stories can still run', () => {
      const r = readiness([
        { id: 'A' },
        { id: 'B', blockedBy: ['A'] },
        { id: 'C', blockedBy: ['D'] },
        { id: 'D', blockedBy: ['C'] },
      ]);
      assert.equal(r.state, 'ready');
      // B is blocked now, but it will run after A: it is not in the explanation.
      assert.deepEqual(r.explanation, [
        'C → D → C is a dependency cycle: none of these stories can become ready until one blockedBy entry is removed.',
      ]);
    });
  });

  describe('projected run order', () => {
    it('follows dependencies first, then priority, then file order', () => {
      const r = readiness([
        { id: 'A', priority: 5 },
        { id: 'B', priority: 1, blockedBy: ['A'] },
        { id: 'C', priority: 3 },
        { id: 'D', priority: 2, passes: true },
        { id: 'E', priority: 3, blockedBy: ['D'] },
        { id: 'F', priority: 0, blockedBy: ['B', 'C'] },
      ]);
      // C (3) and E (3, its blocker D passes) tie: file order. A (5) then unlocks B (1), and B unlocks F (0).
      assert.deepEqual(ids(r.order), ['C', 'E', 'A', 'B', 'F', 'D']);
      assert.deepEqual(
        r.states.map((s) => s.runIndex),
        [2, 3, 0, undefined, 1, 4],
      );
    });

    it('lists stories that can never run after the runnable ones, then the done ones', () => {
      const r = readiness([
        { id: 'DONE', passes: true },
        { id: 'X', blockedBy: ['Y'] },
        { id: 'Y', blockedBy: ['X'] },
        { id: 'A', priority: 9 },
        { id: 'B', blockedBy: ['A', 'GHOST'] },
      ]);
      assert.deepEqual(ids(r.order), ['A', 'X', 'Y', 'B', 'DONE']);
    });

    it('matches the demo project', () => {
      const text = readFileSync(path.join(__dirname, '../../examples/demo/prd.json'), 'utf8');
      const a = analyze(text);
      assert.deepEqual(a.problems, []);
      const r = a.readiness;
      assert.equal(r.state, 'ready');
      assert.equal(r.order[0], r.next);
      // Every pending story runs after the pending stories it waits on.
      const pos = new Map(r.order.map((s, k) => [s.story.id, k]));
      for (const s of r.order) {
        for (const w of s.waitingOn) {
          assert.ok(pos.get(w)! < pos.get(s.story.id)!, `${w} before ${s.story.id}`);
        }
      }
    });
  });

  describe('duplicate ids', () => {
    it('still gives every story a state and a single place in the order', () => {
      const r = readiness([
        { id: 'A', priority: 2 },
        { id: 'B', blockedBy: ['A'] },
        { id: 'A', priority: 1 },
      ]);
      assert.equal(r.states.length, 3);
      assert.equal(r.order.length, 3);
      assert.deepEqual(new Set(r.order.map((s) => s.story.index)), new Set([0, 1, 2]));
      assert.equal(r.next?.story.index, 2);
      // B waits on "A": it becomes runnable after a story with that id runs.
      const pos = r.order.map((s) => s.story.index);
      assert.ok(pos.indexOf(1) > pos.indexOf(0) || pos.indexOf(1) > pos.indexOf(2));
    });
  });

  it('computes the same result without a precomputed graph', () => {
    const text = makePrd([{ id: 'A' }, { id: 'B', blockedBy: ['A'] }, { id: 'C', priority: 0, blockedBy: ['B'] }]);
    const doc = parsePrd(text);
    const direct = computeReadiness(doc.stories);
    const viaAnalyze = analyze(text).readiness;
    assert.deepEqual(ids(direct.order), ids(viaAnalyze.order));
    assert.deepEqual(direct.blocked, viaAnalyze.blocked);
    assert.deepEqual(ids(direct.order), ['A', 'B', 'C']);
  });
});

describe('readiness with non-story elements in userStories', () => {
  it('does not crash when stuck stories sit after a non-object element', () => {
    const story = (id: string, blockedBy: string[]) =>
      JSON.stringify({ id, title: id, priority: 1, passes: false, description: '', acceptanceCriteria: [], blockedBy });
    const text = `{"userStories": [42, ${story('A', ['B'])}, ${story('B', ['A'])}, ${story('C', ['C'])}]}`;
    const a = analyze(text);
    assert.deepEqual(
      a.doc.stories.map((s) => [s.id, s.index]),
      [
        ['A', 1],
        ['B', 2],
        ['C', 3],
      ],
    );
    assert.equal(a.readiness.state, 'blocked');
    assert.deepEqual(ids(a.readiness.order), ['A', 'B', 'C']);
    assert.ok(a.readiness.explanation.some((e) => e.startsWith('A → B → A')));
  });
});
