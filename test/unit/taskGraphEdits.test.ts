/** The task graph's prd.json edits: minimal, the story's own dependency key kept, cycles refused. */
import assert from 'node:assert/strict';
import { applyEdits } from '../../src/core/prd/edits';
import { addDependencyEdits, addStoryEdits, nextStoryId, removeDependencyEdits, setPassesByIdEdits, setIssueFieldsEdits, setStoryFieldEdits, type GraphEditResult } from '../../src/core/prd/graphEdits';
import { makePrd } from './helpers';

function apply(text: string, r: GraphEditResult): string {
  assert.ok(r.ok, r.ok ? '' : r.message);
  return applyEdits(text, r.ok ? r.edits : []);
}

const base = makePrd([
  { id: 'US-001', passes: true, custom: { keep: 1 } },
  { id: 'US-002', blockedBy: ['US-001'] },
  { id: 'US-003', dependsOn: ['US-002'] },
  { id: 'US-004' },
]);

describe('task graph edits', () => {
  it('adds a blocker to the end of the story\'s own list, touching nothing else', () => {
    const out = apply(base, addDependencyEdits(base, 'US-002', 'US-004'));
    assert.deepEqual(JSON.parse(out).userStories[1].blockedBy, ['US-001', 'US-004']);
    assert.equal(out.replace(/,\s*"US-004"/, ''), base);
  });

  it('keeps an alias key: a dependsOn story gets its new blocker under dependsOn', () => {
    const out = apply(base, addDependencyEdits(base, 'US-003', 'US-004'));
    const s = JSON.parse(out).userStories[2];
    assert.deepEqual(s.dependsOn, ['US-002', 'US-004']);
    assert.equal(s.blockedBy, undefined);
    const removed = apply(out, removeDependencyEdits(out, 'US-003', 'US-002'));
    assert.deepEqual(JSON.parse(removed).userStories[2].dependsOn, ['US-004']);
  });

  it('a story without a list gets one under the key the file uses', () => {
    const out = apply(base, addDependencyEdits(base, 'US-004', 'US-001'));
    assert.deepEqual(JSON.parse(out).userStories[3].blockedBy, ['US-001']);
    assert.deepEqual(Object.keys(JSON.parse(out).userStories[3]).slice(0, 2), ['id', 'title']);
  });

  it('refuses a dependency that closes a cycle, and names the cycle', () => {
    const r = addDependencyEdits(base, 'US-001', 'US-002');
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.cycle);
    assert.deepEqual(!r.ok && r.cycle, ['US-001', 'US-002', 'US-001']);
    assert.match(!r.ok ? r.message : '', /would close the cycle US-001 → US-002 → US-001/);
    assert.equal(addDependencyEdits(base, 'US-002', 'US-002').ok, false);
    assert.equal(addDependencyEdits(base, 'US-002', 'US-001').ok, false); // already there
    assert.equal(addDependencyEdits(base, 'US-002', 'NOPE').ok, false);
  });

  it('marks a story by id as passing or not, touching only its passes; a story gone is said', () => {
    const out = apply(base, setPassesByIdEdits(base, 'US-004', true));
    assert.equal(JSON.parse(out).userStories[3].passes, true);
    assert.equal(apply(out, setPassesByIdEdits(out, 'US-004', false)), base);
    const gone = setPassesByIdEdits(base, 'US-404', true);
    assert.equal(gone.ok, false);
    assert.match(gone.ok ? '' : gone.message, /Story "US-404" is no longer in prd.json/);
  });

  it('removes the only blocker and leaves an empty list', () => {
    const out = apply(base, removeDependencyEdits(base, 'US-002', 'US-001'));
    assert.deepEqual(JSON.parse(out).userStories[1].blockedBy, []);
    assert.equal(removeDependencyEdits(base, 'US-002', 'US-004').ok, false);
  });

  it('sets title, description, priority and criteria; unknown fields and key order survive', () => {
    let out = apply(base, setStoryFieldEdits(base, 'US-001', 'title', 'New <b>title</b>'));
    out = apply(out, setStoryFieldEdits(out, 'US-001', 'priority', '7'));
    out = apply(out, setStoryFieldEdits(out, 'US-001', 'acceptanceCriteria', 'one\n\n two '));
    const s = JSON.parse(out).userStories[0];
    assert.equal(s.title, 'New <b>title</b>');
    assert.equal(s.priority, 7);
    assert.deepEqual(s.acceptanceCriteria, ['one', 'two']);
    assert.deepEqual(s.custom, { keep: 1 });
    assert.deepEqual(Object.keys(s), Object.keys(JSON.parse(base).userStories[0]));
    assert.equal(setStoryFieldEdits(base, 'US-001', 'priority', 'high').ok, false);
    assert.equal(setStoryFieldEdits(base, 'US-001', 'title', '  ').ok, false);
  });

  it('adds a story with the next id and the file\'s dependency key', () => {
    const r = addStoryEdits(base, 'Export as CSV', ['US-004']);
    const out = apply(base, r);
    const added = JSON.parse(out).userStories[4];
    assert.equal(added.id, 'US-005');
    assert.equal(added.passes, false);
    assert.deepEqual(added.dependsOn ?? added.blockedBy, ['US-004']);
    assert.equal(nextStoryId(['T-9', 'T-10']), 'T-11');
    assert.equal(nextStoryId([]), 'US-001');
  });

  it('picks a free id after ids whose number is 2^53 or more (it used to loop forever)', () => {
    // 2^53 + 1 is not a JavaScript number: counting with numbers never gets past 2^53.
    assert.equal(nextStoryId(['US-9007199254740992']), 'US-9007199254740993');
    assert.equal(nextStoryId(['US-9007199254740993', 'US-9007199254740994']), 'US-9007199254740995');
    assert.equal(nextStoryId(['US-9007199254740992', 'US-9007199254740993']), 'US-9007199254740994');
    const huge = `T-${'9'.repeat(40)}`;
    assert.equal(nextStoryId([huge]), `T-1${'0'.repeat(40)}`);
    const text = makePrd([{ id: 'US-9007199254740992' }, { id: 'US-9007199254740993' }]);
    const r = addStoryEdits(text, 'After the big ones');
    const ids = (JSON.parse(apply(text, r)) as { userStories: { id: string }[] }).userStories.map((s) => s.id);
    assert.deepEqual(ids, ['US-9007199254740992', 'US-9007199254740993', 'US-9007199254740994']);
  });
});

describe('a publish writes each story’s issue number (issue 20)', () => {
  it('one minimal edit per story whose field differs; the rest of the file untouched; a story no longer there skipped', () => {
    const text = makePrd([{ id: 'A' }, { id: 'B', issue: 7 }, { id: 'C', issue: '#9' }, { id: 'D', issue: 'GH-0014' }, { id: 'E' }]);
    const edits = setIssueFieldsEdits(text, new Map([['A', 11], ['B', 7], ['C', 12], ['D', 14], ['GONE', 13]]));
    assert.equal(edits.length, 2, 'B already says 7, D says GH-0014 (its way of writing 14); GONE is not a story');
    const after = JSON.parse(applyEdits(text, edits)) as { userStories: { id: string; issue?: unknown }[] };
    assert.deepEqual(after.userStories.map((s) => s.issue), [11, 7, 12, 'GH-0014', undefined]);
    const lines = applyEdits(text, edits).split('\n');
    assert.ok(text.split('\n').every((l) => lines.includes(l) || /"(issue|id)"/.test(l) || l.trim() === '}' || l.trim() === '},'), 'only the issue lines change');
    assert.deepEqual(setIssueFieldsEdits(applyEdits(text, edits), new Map([['A', 11], ['C', 12]])), [], 'again: no edit');
  });
});
