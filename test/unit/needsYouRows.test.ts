/** The Needs You node of the Stories view as data: rows, actions, and one announcement per item. */
import assert from 'node:assert/strict';
import { itemsToAnnounce, needsYouHeader, needsYouRow, type NeedsYouInput } from '../../src/core/parallel/needsYouRows';

const conflict: NeedsYouInput = {
  folderKey: 'file:///w',
  storyId: 'US-003',
  why: 'conflict',
  message: 'US-003 needs you: its merge into the feature branch conflicted (conflicts in src/shared.txt).',
  conflictFiles: ['src/shared.txt'],
};
const check: NeedsYouInput = { folderKey: 'file:///w', storyId: 'US-004', why: 'check-failed', message: 'US-004 needs you: the check failed after its merge; the merge was reverted (exit 1).' };

describe('Needs You rows', () => {
  it('a conflict reads "US-003 — merge conflict in <file>", its message as tooltip, with Open Conflict as its main action', () => {
    const row = needsYouRow(conflict);
    assert.equal(row.label, 'US-003 — merge conflict in src/shared.txt');
    assert.equal(row.tooltip, conflict.message);
    assert.deepEqual(row.actions, ['retry', 'skip', 'showTerminal', 'openWorktree', 'openConflict']);
    assert.equal(row.mainAction, 'openConflict');
  });

  it('a failed check has no Open Conflict; its main action shows the terminal (or log)', () => {
    const row = needsYouRow(check);
    assert.equal(row.label, 'US-004 — the check failed after its merge');
    assert.ok(!row.actions.includes('openConflict'));
    assert.equal(row.mainAction, 'showTerminal');
  });

  it('a question reads "US-005 — asks: <the question>", cut to fit a row; the whole question is in the tooltip; its main action shows the terminal (or log)', () => {
    const question = 'The criteria do not say where sessions live. Should I use Redis, or keep them in Postgres?';
    const row = needsYouRow({ folderKey: 'file:///w', storyId: 'US-005', why: 'question', message: `US-005 needs you: its agent asked a question (${question}).`, detail: question });
    assert.equal(row.label, 'US-005 — asks: The criteria do not say where sessions live. Should I use…');
    assert.equal(row.tooltip, `US-005 needs you: its agent asked a question (${question}).`);
    assert.equal(row.mainAction, 'showTerminal');
  });

  it('many conflicted files are summed up', () => {
    assert.equal(needsYouRow({ ...conflict, conflictFiles: ['a', 'b', 'c'] }).label, 'US-003 — merge conflict in a and 2 more files');
    assert.equal(needsYouHeader(2), 'Needs You (2)');
  });

  it('a worktree a cut-off run kept offers Resume, Open Worktree and Remove Worktree, and says how many commits it holds; an orphan offers no Resume', () => {
    const kept = needsYouRow({ folderKey: 'file:///w', storyId: 'US-001', why: 'interrupted', message: 'US-001: its agent was cut off …', recovered: true, commits: 2 });
    assert.equal(kept.label, 'US-001 — interrupted, worktree kept, 2 commits not merged');
    assert.deepEqual(kept.actions, ['resume', 'openWorktree', 'removeWorktree']);
    assert.equal(kept.mainAction, 'resume');
    assert.equal(needsYouRow({ folderKey: 'file:///w', storyId: 'US-002', why: 'unmerged', message: 'm', recovered: true, commits: 1 }).label, 'US-002 — finished, not merged, 1 commit not merged');
    const orphan = needsYouRow({ folderKey: 'file:///w', storyId: 'US-009', why: 'orphaned', message: 'm', recovered: true, commits: 1 });
    assert.deepEqual(orphan.actions, ['openWorktree', 'removeWorktree']);
  });

  it('a conflict recovered from the state file (no terminal survives a reload) offers Remove Worktree instead of Show Terminal', () => {
    const row = needsYouRow({ ...conflict, recovered: true, commits: 1 });
    assert.deepEqual(row.actions, ['retry', 'skip', 'openWorktree', 'removeWorktree', 'openConflict']);
    assert.equal(needsYouRow({ ...check, recovered: true }).mainAction, 'retry');
  });

  it('each item is announced once however often the view refreshes, and again only after it closed and reopened', () => {
    const seen = new Set<string>();
    assert.deepEqual(itemsToAnnounce(seen, [conflict]).map((i) => i.storyId), ['US-003']);
    assert.deepEqual(itemsToAnnounce(seen, [conflict]), []);
    assert.deepEqual(itemsToAnnounce(seen, [conflict, check]).map((i) => i.storyId), ['US-004']);
    assert.deepEqual(itemsToAnnounce(seen, [check]), []);
    assert.deepEqual(itemsToAnnounce(seen, [check, conflict]).map((i) => i.storyId), ['US-003']);
  });
});
