/**
 * THE ready rule followed story by story (ReadyTracker in core/prd/schedule.ts): the parallel loop
 * marks a story passing when its merge lands and asks which stories that made ready. At every step
 * it must give exactly what computeSchedule gives for the same stories with those passes set.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzePrd } from '../../src/core/prd/index';
import type { Story } from '../../src/core/prd/model';
import { computeSchedule, ReadyTracker } from '../../src/core/prd/schedule';
import { makePrd, type StoryInput } from './helpers';

function storiesOf(inputs: StoryInput[]): Story[] {
  return [...analyzePrd(makePrd(inputs)).doc.stories];
}

describe('ReadyTracker: the ready rule as stories pass one by one', () => {
  it('a story becomes ready when the last story it waits on passes, in schedule order', () => {
    const stories = storiesOf([
      { id: 'A', priority: 2 },
      { id: 'B', priority: 1 },
      { id: 'C', priority: 3, blockedBy: ['A', 'B'] },
      { id: 'D', priority: 0, blockedBy: ['A'] },
    ]);
    const t = new ReadyTracker(stories, computeSchedule(stories));
    assert.deepEqual(t.ready().map((i) => stories[i].id), ['B', 'A']);
    assert.deepEqual(t.pass(0).map((i) => stories[i].id), ['D']);
    assert.deepEqual(t.ready().map((i) => stories[i].id), ['D', 'B']);
    assert.deepEqual(t.pass(1).map((i) => stories[i].id), ['C']);
    assert.deepEqual(t.pass(1), [], 'passing twice changes nothing');
    assert.equal(t.passes(1), true);
    assert.equal(t.isReady(2), true);
  });

  it('agrees with computeSchedule at every step on random graphs (duplicate ids, unknown ids, cycles, self-dependencies)', () => {
    const storyArb = fc.record({
      id: fc.constantFrom('S0', 'S1', 'S2', 'S3', 'S4', 'S5', 'S6', 'S7'),
      priority: fc.integer({ min: 0, max: 3 }),
      passes: fc.boolean(),
      blockedBy: fc.array(fc.constantFrom('S0', 'S1', 'S2', 'S3', 'S4', 'S5', 'S6', 'S7', 'X'), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(storyArb, { minLength: 1, maxLength: 10 }), fc.array(fc.nat(), { maxLength: 12 }), (inputs, order) => {
        const stories = storiesOf(inputs);
        const t = new ReadyTracker(stories, computeSchedule(stories));
        let current = stories;
        for (const k of order) {
          const i = k % stories.length;
          t.pass(i);
          current = current.map((s, j) => (j === i ? { ...s, passes: true } : s));
          assert.deepEqual(t.ready(), computeSchedule(current).ready);
        }
      }),
      { numRuns: 500 },
    );
  });
});
