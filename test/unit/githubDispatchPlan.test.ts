/**
 * The dispatch plan (core/github/dispatchPlan.ts): which ready stories run on GitHub Actions now
 * and why each other one waits; a property test over random backlogs, runs and pull requests.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describeDispatchWait, planDispatch, type RunLike } from '../../src/core/github/dispatchPlan';
import { analyzePrd } from '../../src/core/prd/index';
import { makePrd, type StoryInput } from './helpers';

const FEATURE = 'ralph/demo';

function readinessOf(stories: StoryInput[]) {
  return analyzePrd(makePrd(stories, { branchName: FEATURE })).readiness;
}

describe('dispatch plan (GitHub Actions)', () => {
  const stories: StoryInput[] = [
    { id: 'US-001', issue: 1, files: ['src/a.ts'] },
    { id: 'US-002', issue: 2, files: ['src/a.ts'] },
    { id: 'US-003', issue: 3, files: ['src/c.ts'] },
    { id: 'US-004', files: ['src/d.ts'] },
    { id: 'US-005', issue: 5, files: ['src/e.ts'] },
    { id: 'US-006', issue: 6, files: ['src/f.ts'] },
    { id: 'US-007', issue: 7, blockedBy: ['US-001'] },
  ];
  const filesOf = (id: string) => (stories.find((s) => s.id === id)?.files as string[] | undefined) ?? [];

  it('dispatches the ready stories that are not in flight, up to max-parallel, and says why each other waits', () => {
    const plan = planDispatch({
      readiness: readinessOf(stories),
      featureBranch: FEATURE,
      runs: [
        { displayTitle: 'ralph: US-001', status: 'in_progress', htmlUrl: 'https://github.invalid/r/1' },
        { displayTitle: 'ralph: US-003', status: 'completed' },
        { displayTitle: 'ralph advance after #4', status: 'in_progress' },
      ],
      openPulls: [{ headRef: `${FEATURE}-US-003`, number: 9 }],
      maxParallel: 2,
      filesOf,
    });
    assert.equal(plan.inFlight, 1);
    assert.deepEqual(plan.dispatch, [{ storyId: 'US-005', title: 'Story US-005', issue: 5 }]);
    assert.deepEqual(
      plan.waits.map((w) => `${w.storyId} ${describeDispatchWait(w.reason)}`),
      [
        'US-001 runs on GitHub Actions now (https://github.invalid/r/1)',
        'US-002 waits for US-001: both change src/a.ts',
        'US-003 its pull request #9 is open: it waits for the merge',
        'US-004 not published: publish the stories to GitHub first (Publish Stories to GitHub…, or ralph-workbench github publish)',
        'US-006 waits for a free slot (2/2 runs in flight)',
      ],
    );
  });

  it('a run someone else started (a fork’s pull request, a push) or a fork’s pull request named like a story branch never counts as the story in flight', () => {
    const plan = planDispatch({
      readiness: readinessOf([{ id: 'US-001', issue: 1 }, { id: 'US-002', issue: 2 }, { id: 'US-003', issue: 3 }]),
      featureBranch: FEATURE,
      runs: [
        // A fork's pull request runs its own copy of ralph.yml, whose run-name it chose.
        { displayTitle: 'ralph: US-001', status: 'in_progress', event: 'pull_request' },
        { displayTitle: 'ralph: US-002', status: 'queued', event: 'push' },
        { displayTitle: 'ralph: US-003', status: 'in_progress', event: 'workflow_dispatch' },
      ],
      openPulls: [{ headRef: `${FEATURE}-US-002`, number: 9, fromFork: true }],
      maxParallel: 3,
    });
    assert.equal(plan.inFlight, 1, 'only the dispatched run is in flight');
    assert.deepEqual(plan.dispatch.map((d) => d.storyId), ['US-001', 'US-002']);
  });

  it('dispatches nothing when more runs are in flight than max-parallel allows', () => {
    const plan = planDispatch({
      readiness: readinessOf(stories),
      featureBranch: FEATURE,
      runs: ['US-009', 'US-010', 'US-011'].map((id) => ({ displayTitle: `ralph: ${id}`, status: 'queued' })),
      openPulls: [],
      maxParallel: 2,
    });
    assert.deepEqual(plan.dispatch, []);
  });

  it('dispatches unpublished stories when asked (the workflow itself needs no issue)', () => {
    const plan = planDispatch({ readiness: readinessOf([{ id: 'US-004' }]), featureBranch: FEATURE, runs: [], openPulls: [], maxParallel: 1, requirePublished: false });
    assert.deepEqual(plan.dispatch.map((d) => d.storyId), ['US-004']);
  });

  const STATUSES = ['queued', 'in_progress', 'completed', 'waiting', 'requested', 'pending'];
  const FILES = ['a.ts', 'b.ts', 'src', 'src/c.ts'];
  const scenario = fc.record({
    stories: fc.array(
      fc.record({ passes: fc.boolean(), deps: fc.array(fc.nat(9), { maxLength: 2 }), published: fc.boolean(), files: fc.subarray(FILES, { maxLength: 2 }) }),
      { minLength: 1, maxLength: 10 },
    ),
    runs: fc.array(fc.record({ story: fc.nat(12), status: fc.constantFrom(...STATUSES) }), { maxLength: 6 }),
    pulls: fc.array(fc.nat(12), { maxLength: 3 }),
    maxParallel: fc.integer({ min: 1, max: 4 }),
    allowOverlap: fc.boolean(),
  });

  it('never more than max-parallel in flight after the plan, never a story twice, never one whose blockers do not pass (property)', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const ids = s.stories.map((_, i) => `S-${i}`);
        const input: StoryInput[] = s.stories.map((st, i) => ({
          id: ids[i],
          passes: st.passes,
          blockedBy: st.deps.filter((d) => d < i).map((d) => ids[d]),
          files: st.files,
          ...(st.published ? { issue: 100 + i } : {}),
        }));
        const runs: RunLike[] = s.runs.map((r) => ({ displayTitle: `ralph: S-${r.story}`, status: r.status }));
        const plan = planDispatch({
          readiness: readinessOf(input),
          featureBranch: FEATURE,
          runs,
          openPulls: s.pulls.map((p) => ({ headRef: `${FEATURE}-S-${p}` })),
          maxParallel: s.maxParallel,
          filesOf: (id) => (input.find((x) => x.id === id)?.files as string[]) ?? [],
          allowOverlap: s.allowOverlap,
        });
        const active = runs.filter((r) => r.status !== 'completed');
        const dispatched = plan.dispatch.map((d) => d.storyId);
        assert.equal(plan.inFlight, active.length);
        assert.ok(dispatched.length === 0 || active.length + dispatched.length <= s.maxParallel, 'max-parallel');
        assert.equal(new Set(dispatched).size, dispatched.length, 'a story twice in one plan');
        for (const id of dispatched) {
          assert.ok(!active.some((r) => r.displayTitle === `ralph: ${id}`), `${id} is in flight already`);
          assert.ok(!s.pulls.some((p) => `S-${p}` === id), `${id} has an open pull request`);
          const story = input.find((x) => x.id === id) as StoryInput;
          assert.equal(story.passes, false);
          for (const b of story.blockedBy ?? []) {
            assert.equal(input.find((x) => x.id === b)?.passes, true, `${id} runs before its blocker ${b} passes`);
          }
          assert.ok(plan.dispatch.find((d) => d.storyId === id)?.issue !== undefined, 'published only');
        }
        // Every ready story is either dispatched or waits, once.
        const ready = readinessOf(input).ready.map((r) => r.story.id);
        assert.deepEqual([...dispatched, ...plan.waits.map((w) => w.storyId)].sort(), [...ready].sort());
      }),
      { numRuns: 300 },
    );
  });
});
