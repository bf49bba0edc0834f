/**
 * "Add blocker…" offers exactly the stories the add-dependency edit accepts (one rule:
 * core/prd/blockers.ts), and says why the others are missing.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { blockerOffer, blockerOfferNote } from '../../src/core/prd/blockers';
import { addDependencyEdits } from '../../src/core/prd/graphEdits';
import { analyzePrd } from '../../src/core/prd/index';
import { makePrd } from './helpers';

/** The demo's stories and dependencies (examples/demo/prd.json). */
const demo = makePrd([
  { id: 'US-001', passes: true },
  { id: 'US-002', passes: true, blockedBy: ['US-001'] },
  { id: 'US-003', passes: true, blockedBy: ['US-002'] },
  { id: 'US-004', passes: true, blockedBy: ['US-002'] },
  { id: 'US-005', blockedBy: ['US-003'] },
  { id: 'US-006', blockedBy: ['US-002'] },
  { id: 'US-007', blockedBy: ['US-004', 'US-006'] },
  { id: 'US-008', blockedBy: ['US-004'] },
  { id: 'US-009', blockedBy: ['US-001', 'US-008'] },
  { id: 'US-010', blockedBy: ['US-004'] },
  { id: 'US-011', blockedBy: ['US-005', 'US-009'] },
  { id: 'US-012', blockedBy: ['US-007', 'US-011'] },
]);

const offeredIds = (text: string, id: string): string[] | undefined => blockerOffer(analyzePrd(text), id)?.offered.map((s) => s.id);

describe('Add blocker… offers only what the edit accepts', () => {
  it('leaves out the story itself, its blockers and the stories that wait on it, and says why', () => {
    const offer = blockerOffer(analyzePrd(demo), 'US-007');
    assert.ok(offer);
    assert.deepEqual(
      offer.offered.map((s) => s.id),
      ['US-001', 'US-002', 'US-003', 'US-005', 'US-008', 'US-009', 'US-010', 'US-011'],
    );
    assert.equal(blockerOfferNote(offer), '3 stories not offered: would make a cycle (US-012), already a blocker (US-004, US-006)');
    // the first story waits on nothing: every story after it waits on it, directly or not
    const first = blockerOffer(analyzePrd(demo), 'US-001');
    assert.deepEqual(first?.offered, []);
    assert.match(blockerOfferNote(first!) ?? '', /^11 stories not offered: would make a cycle \(US-002, US-003, US-004, US-005, US-006, … 6 more\)$/);
    assert.equal(blockerOffer(analyzePrd(demo), 'US-404'), undefined);
  });

  it('a story without an id, and a second story with an id already seen, are not offered twice or at all', () => {
    const text = JSON.stringify({ userStories: [{ id: 'A', title: 'a' }, { title: 'no id' }, { id: 'B', title: 'b' }, { id: 'B', title: 'b again' }, { id: 'C', title: 'c' }] });
    const offer = blockerOffer(analyzePrd(text), 'C');
    assert.deepEqual(offer?.offered.map((s) => s.title), ['a', 'b']);
    assert.equal(blockerOfferNote(offer!), '1 story not offered: no id in prd.json (#2)');
    assert.equal(blockerOfferNote(blockerOffer(analyzePrd(makePrd([{ id: 'A' }, { id: 'B' }])), 'A')!), undefined, 'nothing left out, nothing said');
  });

  it('for any prd.json, a story is offered exactly when adding it as a blocker succeeds (fast-check)', () => {
    // Small id alphabets make repeats, cycles and references to unknown ids common.
    const storyArb = fc.record(
      {
        id: fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F'),
        passes: fc.boolean(),
        blockedBy: fc.array(fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F', 'X'), { maxLength: 3 }),
      },
      { requiredKeys: ['passes', 'blockedBy'] },
    );
    fc.assert(
      fc.property(fc.array(storyArb, { minLength: 1, maxLength: 8 }), (stories) => {
        const text = JSON.stringify({ userStories: stories.map((s, i) => ({ ...s, title: `story ${i}` })) }, null, 2);
        const ids = [...new Set(analyzePrd(text).doc.stories.map((s) => s.id))];
        for (const story of ids) {
          const accepted = ids.filter((b) => addDependencyEdits(text, story, b).ok);
          assert.deepEqual(offeredIds(text, story), accepted, `blockers of ${story} in ${text}`);
          const offer = blockerOffer(analyzePrd(text), story)!;
          const refused = Object.values(offer.refused).flat();
          assert.deepEqual(new Set([...accepted, ...refused, story]).size, ids.length, 'every other story is offered or explained');
        }
      }),
      { numRuns: 300 },
    );
  });
});
