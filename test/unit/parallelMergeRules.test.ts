/**
 * The pure rules of the merge queue (src/core/parallel): prd.json gets one minimal edit, other
 * stories' edits are reported and not merged; progress.txt is an append-only union.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { planPrdMerge } from '../../src/core/parallel/prdMerge';
import { unionProgress } from '../../src/core/parallel/progressUnion';
import { applyEdits } from '../../src/core/textEdit';
import { makePrd } from './helpers';

const stories = (passes: Record<string, boolean> = {}, extra: Record<string, Record<string, unknown>> = {}) =>
  ['US-001', 'US-002', 'US-003'].map((id) => ({ id, passes: passes[id] ?? false, ...extra[id] }));

describe('parallel: prd.json merge rule', () => {
  it('sets passes of the merged story with one minimal edit: every other byte unchanged', () => {
    // The main file has its own layout (4 spaces, an unknown field) and another story already passes.
    const main = makePrd(stories({ 'US-002': true }, { 'US-003': { custom: { keep: [1, 2] } } }), {}, 4);
    const base = makePrd(stories());
    const worktree = makePrd(stories({ 'US-001': true }));
    const plan = planPrdMerge(main, base, worktree, 'US-001');
    assert.ok(plan.ok);
    assert.deepEqual(plan.ignored, []);
    assert.equal(plan.edits.length, 1);
    const after = applyEdits(main, plan.edits);
    const at = main.indexOf('"passes": false');
    assert.equal(after, `${main.slice(0, at)}"passes": true${main.slice(at + '"passes": false'.length)}`);
  });

  it('edits the worktree made to other stories are not merged, and are reported', () => {
    const main = makePrd(stories());
    const worktree = makePrd(stories({ 'US-001': true, 'US-003': true }, { 'US-002': { title: 'Renamed by the agent' } }));
    const plan = planPrdMerge(main, main, worktree, 'US-001');
    assert.ok(plan.ok);
    assert.deepEqual([...plan.ignored].sort(), ['US-002', 'US-003']);
    const after = JSON.parse(applyEdits(main, plan.edits)) as { userStories: { id: string; passes: boolean; title: string }[] };
    assert.deepEqual(
      after.userStories.map((s) => [s.id, s.passes, s.title]),
      [
        ['US-001', true, 'Story US-001'],
        ['US-002', false, 'Story US-002'],
        ['US-003', false, 'Story US-003'],
      ],
    );
  });

  it('a story that does not pass in the worktree is not merged', () => {
    const main = makePrd(stories());
    const plan = planPrdMerge(main, main, main, 'US-001');
    assert.equal(plan.ok, false);
    assert.match(plan.ok ? '' : plan.message, /US-001 does not pass in the worktree's prd\.json/);
  });
});

const HEADER = '# Ralph Progress Log\nStarted: 2026-01-01\n---\n\n## Codebase Patterns\n- Use the helper in src/lib\n\n---\n\n';
function entry(n: number): string {
  return `## 2026-01-01 10:${String(n % 60).padStart(2, '0')} - US-${String(n).padStart(3, '0')}\n- Did thing ${n}\n- **Learnings for future iterations:**\n  - learning-${n}-unique\n---\n\n`;
}
const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('parallel: progress.txt union', () => {
  it('appends the worktree’s new entries and patterns; the main file’s text is kept', () => {
    const base = HEADER + entry(1);
    const main = base + entry(2);
    const worktree = `${base.replace('- Use the helper in src/lib\n', '- Use the helper in src/lib\n- Run migrations first\n')}${entry(3)}`;
    const u = unionProgress(main, base, worktree);
    assert.deepEqual(u.entries, ['US-003']);
    assert.equal(u.patterns, 1);
    assert.ok(u.text.endsWith(entry(3).trimEnd() + '\n'), u.text);
    assert.equal(count(u.text, 'Run migrations first'), 1);
    // Idempotent: merging the same worktree again adds nothing.
    assert.equal(unionProgress(u.text, base, worktree).text, u.text);
  });

  it('every learning of the main file and of the worktree’s new entries is present exactly once (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 12 }),
        fc.uniqueArray(fc.integer({ min: 41, max: 80 }), { maxLength: 8 }),
        fc.func(fc.boolean()),
        fc.func(fc.boolean()),
        (baseIds, fresh, inMain, inWorktree) => {
          // Base: where the worktree started. Main moved on (other merges, maybe this one's entries
          // already, as after a crash between two merges); the worktree kept some of base and added fresh.
          const mainIds = [...baseIds, ...fresh.filter((n) => inMain(n))];
          const wtIds = [...baseIds.filter((n) => inWorktree(n)), ...fresh];
          const base = HEADER + baseIds.map(entry).join('');
          const main = HEADER + mainIds.map(entry).join('');
          const worktree = HEADER + wtIds.map(entry).join('');
          const u = unionProgress(main, base, worktree);
          assert.ok(u.text.startsWith(main), 'append-only');
          for (const n of new Set([...mainIds, ...fresh])) {
            assert.equal(count(u.text, `learning-${n}-unique`), 1, `learning ${n}`);
          }
          assert.equal(unionProgress(u.text, base, worktree).text, u.text);
        },
      ),
      { numRuns: 200 },
    );
  });
});
