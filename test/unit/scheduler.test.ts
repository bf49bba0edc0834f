/**
 * The scheduler: the LoopController decides which story runs, including the story the user picked
 * ("Run this story" on a blocked or done one, after confirming), and the loop driver runs exactly
 * what it decided (the runner used to replace the controller's choice by the picked story).
 */
import assert from 'node:assert/strict';
import { type IterationRecord, LoopController, type RunStep } from '../../src/core/loop/loop';
import { runLoop } from '../../src/core/loop/scheduler';
import { analyzePrd, type PrdAnalysis } from '../../src/core/prd/index';
import { makePrd, type StoryInput } from './helpers';

// US-002 is blocked by US-001; US-000 already passes; US-001 is the one ready story.
const stories: StoryInput[] = [
  { id: 'US-000', title: 'Done', priority: 1, passes: true },
  { id: 'US-001', title: 'Ready', priority: 2 },
  { id: 'US-002', title: 'Blocked', priority: 3, blockedBy: ['US-001'] },
];

function passing(a: PrdAnalysis, id: string): PrdAnalysis {
  return analyzePrd(makePrd(stories.map((s) => (s.id === id || a.doc.stories.find((x) => x.id === s.id)?.passes ? { ...s, passes: true } : s))));
}

/** Drives `runLoop` over an in-memory prd.json whose agent passes each story it is given. */
async function drive(loop: LoopController): Promise<{ ran: RunStep[]; stop: string }> {
  let prd = analyzePrd(makePrd(stories));
  const ran: RunStep[] = [];
  const outcome = await runLoop(loop, {
    read: async () => prd,
    beforeFirstIteration: async () => undefined,
    iterate: async (step, before) => {
      ran.push(step);
      const passingBefore = before.readiness.counts.done;
      prd = passing(prd, step.storyId);
      return loop.recordIteration({
        storyId: step.storyId,
        exitCode: 0,
        passingBefore,
        passingAfter: prd.readiness.counts.done,
        totalAfter: prd.readiness.counts.total,
        storyPasses: true,
        completeSignal: false,
      });
    },
    log: () => undefined,
  });
  return { ran, stop: outcome.stop.reason };
}

describe('scheduler: the loop controller chooses, the loop runs its choice', () => {
  it('the story the user picked runs first even when it is blocked, then the loop goes on with the ready ones', async () => {
    const loop = new LoopController({ maxIterations: 3, firstStory: 'US-002' });
    const first = loop.nextStep(analyzePrd(makePrd(stories)));
    assert.deepEqual(first, { kind: 'run', storyId: 'US-002', storyTitle: 'Blocked', iteration: 1, maxIterations: 3 });
    const { ran, stop } = await drive(loop);
    assert.deepEqual(
      ran.map((s) => s.storyId),
      ['US-002', 'US-001'],
    );
    assert.equal(stop, 'all-pass');
  });

  it('a picked story that already passes runs once (Run Anyway), and a one-iteration run stops after it', async () => {
    const loop = new LoopController({ maxIterations: 1, firstStory: 'US-000' });
    const { ran, stop } = await drive(loop);
    assert.deepEqual(
      ran.map((s) => [s.storyId, s.storyTitle]),
      [['US-000', 'Done']],
    );
    assert.equal(stop, 'max-iterations');
  });

  it('the pick is a rule of the first iteration only: a stop request or a missing story leaves the usual choice', () => {
    const prd = analyzePrd(makePrd(stories));
    const stopped = new LoopController({ firstStory: 'US-002' });
    stopped.requestStop('after-iteration');
    assert.equal(stopped.nextStep(prd).kind, 'stop');
    const gone = new LoopController({ firstStory: 'US-404' });
    assert.equal((gone.nextStep(prd) as RunStep).storyId, 'US-001');
    const later = new LoopController({ firstStory: 'US-002' });
    later.recordIteration({ storyId: 'US-002', exitCode: 0, passingBefore: 1, passingAfter: 1, storyPasses: false, completeSignal: false });
    assert.equal((later.nextStep(prd) as RunStep).storyId, 'US-001');
    // every story passes: the pick still runs (the user confirmed), as "Run this story" did before
    const done = analyzePrd(makePrd(stories.map((s) => ({ ...s, passes: true }))));
    assert.equal((new LoopController({ firstStory: 'US-001' }).nextStep(done) as RunStep).storyId, 'US-001');
  });

  it('asks before the first iteration only, and a stop answer runs nothing', async () => {
    let asked = 0;
    const iterations: IterationRecord[] = [];
    const outcome = await runLoop(new LoopController({ maxIterations: 2 }), {
      read: async () => analyzePrd(makePrd(stories)),
      beforeFirstIteration: async () => {
        asked++;
        return { kind: 'stop', reason: 'cancelled', message: 'Not started.', details: [] };
      },
      iterate: async () => assert.fail('nothing runs'),
      log: () => undefined,
    });
    assert.equal(asked, 1);
    assert.deepEqual(outcome, { stop: { kind: 'stop', reason: 'cancelled', message: 'Not started.', details: [] }, iterations });
  });
});
