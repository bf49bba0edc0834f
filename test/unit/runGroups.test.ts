/** The Runs view's grouping of a parallel loop's runs by wave (src/core/runs/runGroups.ts). */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { groupRuns, mergeText, type RunGroup } from '../../src/core/runs/runGroups';
import { MERGE_RESULTS, type MergeResult, type RunRecord } from '../../src/core/runs/runs';

const run = (storyId: string, loopId: string, parallel?: { wave: number; merge?: MergeResult; mergeCommit?: string }, start = '2026-11-20T10:00:00.000Z'): RunRecord => ({
  start,
  end: start,
  storyId,
  storyTitle: storyId,
  agent: 'custom',
  exitCode: 0,
  durationMs: 1000,
  passingBefore: 0,
  passingAfter: 0,
  storyPasses: parallel?.merge === 'merged',
  commit: null,
  complete: false,
  outcome: parallel?.merge ? 'passed' : 'failed',
  promptFile: `.ralph/prompts/${storyId}.md`,
  iteration: 1,
  loopId,
  ...(parallel ? { parallel: { worktree: `/wt/${storyId}`, branch: `ralph/x-${storyId}`, ...parallel } } : {}),
});

/** Every run index a grouping shows, in the order shown. */
const shownIndexes = (groups: readonly RunGroup[]): number[] => groups.flatMap((g) => (g.kind === 'run' ? [g.index] : g.waves.flatMap((w) => w.runs)));

describe('Runs view: a parallel loop grouped by wave', () => {
  it('loop → waves in order, each labelled with its stories and what their merges did; serial runs stay rows of their own', () => {
    const runs = [
      run('US-000', 'serial-1'),
      run('US-001', 'par-1', { wave: 0, merge: 'merged', mergeCommit: 'abcdef1234567890' }),
      run('US-002', 'par-1', { wave: 0, merge: 'conflict' }),
      run('US-003', 'par-1', { wave: 0, merge: 'merged', mergeCommit: '1234567abcdef' }),
      run('US-004', 'par-1', { wave: 1, merge: 'check-failed' }),
      run('US-004', 'par-1', { wave: 1, merge: 'merged', mergeCommit: 'feedbeef00' }),
      run('US-005', 'par-1', { wave: 1 }),
      run('US-006', 'serial-2'),
    ];
    const groups = groupRuns(runs);
    assert.deepEqual(groups.map((g) => (g.kind === 'run' ? runs[g.index].storyId : g.label)), ['US-006', 'Parallel loop (2 waves, 6 runs)', 'US-000']);
    const loop = groups[1];
    assert.ok(loop.kind === 'loop');
    assert.deepEqual(
      loop.waves.map((w) => [w.label, w.runs.map((i) => runs[i].storyId)]),
      [
        ['Wave 1 (3 stories: 2 merged, 1 conflict)', ['US-003', 'US-002', 'US-001']],
        // US-004 counted once, by its latest run (merged after a failed check).
        ['Wave 2 (2 stories: 1 merged, 1 not merged)', ['US-005', 'US-004', 'US-004']],
      ],
    );
  });

  it('a run row says its merge outcome: merged <short sha>, conflict, check failed; nothing when no merge was tried', () => {
    assert.equal(mergeText({ wave: 0, worktree: '/w', branch: 'b', merge: 'merged', mergeCommit: 'abcdef1234567890' }), 'merged abcdef1');
    assert.equal(mergeText({ wave: 0, worktree: '/w', branch: 'b', merge: 'conflict' }), 'conflict');
    assert.equal(mergeText({ wave: 0, worktree: '/w', branch: 'b', merge: 'check-failed' }), 'check failed');
    assert.equal(mergeText({ wave: 0, worktree: '/w', branch: 'b' }), undefined);
    assert.equal(mergeText(undefined), undefined);
  });

  it('every run appears exactly once; serial runs keep their newest-first order; one group per parallel loop (property)', () => {
    const arbRun = fc.record({
      story: fc.constantFrom('US-1', 'US-2', 'US-3', 'US-4'),
      loop: fc.constantFrom('a', 'b', 'c'),
      parallel: fc.option(fc.record({ wave: fc.nat({ max: 4 }), merge: fc.option(fc.constantFrom(...MERGE_RESULTS), { nil: undefined }) }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(arbRun, { maxLength: 40 }), (specs) => {
        const runs = specs.map((s) => run(s.story, s.parallel ? `par-${s.loop}` : `serial-${s.loop}`, s.parallel));
        const groups = groupRuns(runs);
        const shown = shownIndexes(groups);
        assert.deepEqual([...shown].sort((x, y) => x - y), runs.map((_, i) => i));
        const serial = groups.filter((g) => g.kind === 'run').map((g) => (g.kind === 'run' ? g.index : -1));
        assert.deepEqual(serial, runs.map((r, i) => (r.parallel ? -1 : i)).filter((i) => i >= 0).reverse());
        const loops = groups.filter((g) => g.kind === 'loop').map((g) => (g.kind === 'loop' ? g.loopId : ''));
        assert.equal(new Set(loops).size, loops.length);
        for (const g of groups) {
          if (g.kind === 'loop') {
            assert.ok(g.waves.every((w) => w.runs.every((i) => runs[i].loopId === g.loopId && runs[i].parallel?.wave === w.wave)));
          }
        }
      }),
    );
  });
});
