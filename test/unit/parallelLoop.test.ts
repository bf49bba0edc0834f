/**
 * The parallel loop (issue 19, core): the scheduler's decision (planStarts) and the event-driven
 * state machine (ParallelLoop) that the extension and the headless CLI drive with their executors.
 * Scenario tests for each rule, then a model-based property test over random event sequences.
 */
import assert from 'node:assert/strict';
import { type ParallelCommand, ParallelLoop, type ParallelLoopOptions, type ParallelStop } from '../../src/core/loop/parallelLoop';
import { planStarts, type PlanInput, NO_ATTEMPTS, DEFAULT_PARALLEL_CONFIG } from '../../src/core/loop/parallelPlan';
import { describeWait, shortWait } from '../../src/core/loop/waitReasons';
import { analyzePrd } from '../../src/core/prd/index';
import { makePrd, type StoryInput } from './helpers';

function loopOf(stories: StoryInput[], options: ParallelLoopOptions = {}): ParallelLoop {
  return new ParallelLoop(analyzePrd(makePrd(stories)), options);
}

/** `start A`, `merge A`, `stop all-pass`, … */
function show(commands: readonly ParallelCommand[]): string[] {
  return commands.map((c) => (c.kind === 'stop' ? `stop ${c.reason}` : c.kind === 'needsYou' ? `needsYou ${c.item.storyId} ${c.item.why}` : `${c.kind} ${c.storyId}`));
}

const five: StoryInput[] = ['A', 'B', 'C', 'D', 'E'].map((id, k) => ({ id, priority: k + 1 }));

describe('planStarts: which ready stories start now and why the others wait', () => {
  const base: PlanInput = {
    ready: ['A', 'B', 'C'],
    holders: [],
    running: 0,
    iterations: 0,
    config: { ...DEFAULT_PARALLEL_CONFIG, maxAgents: 2 },
    filesOf: () => [],
    countersOf: () => NO_ATTEMPTS,
    needsYou: () => undefined,
    skipped: () => false,
    stopping: false,
  };

  it('fills the free slots in schedule order; the rest wait for a slot', () => {
    const plan = planStarts(base);
    assert.deepEqual(plan.start, ['A', 'B']);
    assert.deepEqual(plan.waits, [{ storyId: 'C', reason: { kind: 'slot-full', running: 2, maxAgents: 2 } }]);
  });

  it('the guard names the story with unmerged work on the same file, also one started by the same decision', () => {
    const files: Record<string, string[]> = { A: ['src/a.ts'], B: ['src/a.ts', 'src/b.ts'], C: ['src/c.ts'] };
    const plan = planStarts({ ...base, config: { ...base.config, maxAgents: 3 }, holders: [{ storyId: 'Z', files: ['src/c.ts'] }], running: 0, filesOf: (id) => files[id] ?? [] });
    assert.deepEqual(plan.start, ['A']);
    assert.deepEqual(
      plan.waits.map((w) => `${w.storyId} ${describeWait(w.reason)}`),
      ['B waits for A: both change src/a.ts', 'C waits for Z: both change src/c.ts'],
    );
    assert.deepEqual(plan.waits.map((w) => shortWait(w.reason)), ['waits for A', 'waits for Z'], 'a narrow row names the story it waits for');
  });

  it('a tripped breaker, an open item, a skip, a stop and the iteration limit each hold a story back, in that order', () => {
    const plan = planStarts({
      ...base,
      ready: ['A', 'B', 'C', 'D'],
      iterations: 9,
      config: { ...base.config, maxIterations: 10 },
      countersOf: (id) => (id === 'A' ? { attempts: 2, consecutiveFailures: 2, consecutiveNoProgress: 2 } : NO_ATTEMPTS),
      needsYou: (id) => (id === 'B' ? { kind: 'needs-you', why: 'conflict' } : undefined),
      skipped: (id) => id === 'C',
    });
    assert.deepEqual(plan.start, ['D']);
    assert.deepEqual(
      plan.waits.map((w) => describeWait(w.reason)),
      ['needs you: its agent exited with an error 2 times in a row', 'needs you: its merge into the feature branch conflicted', 'skipped (you chose Skip Story)'],
    );
    assert.deepEqual(plan.waits.map((w) => shortWait(w.reason)), ['needs you', 'needs you', 'skipped']);
    const limit = planStarts({ ...base, iterations: 10, config: { ...base.config, maxIterations: 10 } });
    assert.deepEqual(limit.start, []);
    assert.equal(describeWait(limit.waits[0].reason), 'not started: the loop reached its maximum of 10 iterations');
    assert.deepEqual(planStarts({ ...base, stopping: true }).start, []);
  });
});

describe('ParallelLoop: the parallel loop as events in, commands out', () => {
  it('starts up to maxAgents ready stories and refills a slot as soon as an agent ends', () => {
    const loop = loopOf(five, { config: { maxAgents: 2 } });
    assert.deepEqual(show(loop.begin()), ['start A', 'start B']);
    assert.deepEqual(loop.waits.map((w) => `${w.storyId} ${describeWait(w.reason)}`), ['C waits for a free slot (2/2 agents running)', 'D waits for a free slot (2/2 agents running)', 'E waits for a free slot (2/2 agents running)']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' })), ['merge B', 'start C']);
  });

  it('two stories that change the same file do not run at once: the second waits until the first has merged', () => {
    const loop = loopOf(five.slice(0, 3), { config: { maxAgents: 3 }, predictions: new Map([['A', ['src/api/tasks.ts']], ['B', ['./src/api/tasks.ts', 'src/b.ts']]]) });
    assert.deepEqual(show(loop.begin()), ['start A', 'start C']);
    assert.deepEqual(loop.waits.map((w) => describeWait(w.reason)), ['waits for A: both change src/api/tasks.ts']);
    assert.deepEqual(loop.waits[0].reason, { kind: 'overlap', waitsFor: 'A', files: ['src/api/tasks.ts'] });
    // A finished, but its change is not on the feature branch yet: B still waits.
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'passed' })), ['merge A']);
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' })), ['start B']);
  });

  it('with allowOverlap they run at once', () => {
    const loop = loopOf(five.slice(0, 2), { config: { allowOverlap: true }, predictions: new Map([['A', ['src/a.ts']], ['B', ['src/a.ts']]]) });
    assert.deepEqual(show(loop.begin()), ['start A', 'start B']);
  });

  it('the files an attempt changed join the story\'s prediction (the memory files do not)', () => {
    const loop = loopOf(five.slice(0, 2), { config: { maxAgents: 2 }, predictions: new Map([['B', ['src/b.ts']]]) });
    assert.deepEqual(show(loop.begin()), ['start A', 'start B']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' })), ['merge B']);
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'B', outcome: 'conflict' })), ['needsYou B conflict']);
    const again = loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'failed', filesChanged: ['prd.json', 'progress.txt', 'src/AGENTS.md', '.ralph/x', 'src/b.ts'] });
    assert.deepEqual(again, [{ kind: 'start', storyId: 'A', storyTitle: 'Story A', iteration: 3, maxIterations: 10, files: ['src/b.ts'] }]);
    assert.deepEqual(show(loop.handle({ kind: 'retry', storyId: 'B' })), []);
    assert.deepEqual(loop.waits.map((w) => describeWait(w.reason)), ['waits for A: both change src/b.ts']);
  });

  it('a story becomes ready when its blockers have merged, not when they finished', () => {
    const loop = loopOf([{ id: 'A', priority: 1 }, { id: 'B', priority: 2, blockedBy: ['A'] }]);
    assert.deepEqual(show(loop.begin()), ['start A']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'passed' })), ['merge A']);
    assert.equal(loop.phaseOf('B'), 'pending');
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' })), ['start B']);
    loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' });
    const end = loop.handle({ kind: 'merged', storyId: 'B', outcome: 'merged' });
    assert.deepEqual(show(end), ['stop all-pass']);
    assert.equal((end[0] as ParallelStop).message, 'Stopped: every story passes (2/2).');
  });

  it('merges one at a time, the earliest story in the schedule first', () => {
    const loop = loopOf(five.slice(0, 3), { config: { maxAgents: 3 } });
    loop.begin();
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'C', outcome: 'passed' })), ['merge C']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' })), []);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'passed' })), []);
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'C', outcome: 'merged' })), ['merge A']);
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' })), ['merge B']);
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'B', outcome: 'merged' })), ['stop all-pass']);
  });

  it('the maximum number of iterations counts agent starts across slots', () => {
    const loop = loopOf(five, { config: { maxAgents: 2, maxIterations: 3 } });
    assert.deepEqual(show(loop.begin()), ['start A', 'start B']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'no-progress' })), ['start A']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' })), ['merge B']);
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'B', outcome: 'merged' })), []);
    const end = loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'passed' });
    assert.deepEqual(show(end), ['merge A']);
    const stop = loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' });
    assert.deepEqual(show(stop), ['stop max-iterations']);
    assert.equal((stop[0] as ParallelStop).message, 'Stopped: reached the maximum of 3 iterations across the slots (2/5 stories pass).');
    assert.deepEqual((stop[0] as ParallelStop).details, ['C: not started: the loop reached its maximum of 3 iterations', 'D: not started: the loop reached its maximum of 3 iterations', 'E: not started: the loop reached its maximum of 3 iterations']);
  });

  it('an agent that hits its limit: nothing new starts until the wait ends; the run counts toward neither the breakers nor the maximum; the story runs again', () => {
    const loop = loopOf(five, { config: { maxAgents: 2, maxIterations: 2, failureLimit: 1, noProgressLimit: 1 } });
    assert.deepEqual(show(loop.begin()), ['start A', 'start B']);
    const wait = loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'rate-limited' });
    assert.deepEqual(wait, [{ kind: 'limitWait', storyId: 'A', inARow: 1 }]);
    assert.deepEqual(
      loop.waits.map((w) => `${w.storyId} ${describeWait(w.reason)}`).slice(0, 2),
      ["A waits for the agent's limit to reset", "C waits for the agent's limit to reset"],
    );
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' })), ['merge B'], 'a slot is free, but nothing starts');
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'B', outcome: 'merged' })), [], 'nothing runs, and yet the loop does not stop while it waits');
    assert.deepEqual(show(loop.handle({ kind: 'limitEnded' })), ['start A'], 'the limited run did not use up an iteration');
    assert.deepEqual(loop.countersOf('A'), { attempts: 1, consecutiveFailures: 0, consecutiveNoProgress: 0 });
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'passed' })), ['merge A']);
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' })), ['stop max-iterations']);
  });

  it('Stop All during a limit wait: the loop stops once the wait ends (the driver ends it at once)', () => {
    const loop = loopOf(five, { config: { maxAgents: 1 } });
    loop.begin();
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'rate-limited' })), ['limitWait A']);
    assert.deepEqual(show(loop.handle({ kind: 'stopRequested', mode: 'now' })), []);
    const stop = loop.handle({ kind: 'limitEnded' });
    assert.deepEqual(show(stop), ['stop stop-requested']);
    assert.equal((stop[0] as ParallelStop).message, "Stopped: you stopped the loop while it waited for the agent's limit to reset; 0 iterations ran (0/5 stories pass).");
    assert.equal(loop.handle({ kind: 'limitEnded' }).length, 0);
  });

  it('the limit breaker, overall: after maxLimitedInARow limited runs in a row across the slots the loop stops (rate-limit) once the running agents end, without another wait', () => {
    const loop = loopOf(five, { config: { maxAgents: 2, maxLimitedInARow: 2 } });
    assert.deepEqual(show(loop.begin()), ['start A', 'start B']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'rate-limited', resetAt: new Date('2026-11-26T15:00:00Z') })), ['limitWait A']);
    // B is limited too, while A's wait runs: the second in a row trips it; A's wait no longer holds the loop
    const stop = loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'rate-limited' });
    assert.deepEqual(show(stop), ['stop rate-limit']);
    assert.equal(
      (stop[0] as ParallelStop).message,
      'Stopped: the agent hit its usage or rate limit in 2 runs in a row (last: B; it printed no reset time) (0/5 stories pass). Each retry is a paid run, so the loop waits no longer: run it again after the reset, or raise ralph.agent.maxLimitedInARow (2; 0: never stop).',
    );
    assert.equal(loop.handle({ kind: 'limitEnded' }).length, 0);
  });

  it('the limit breaker lets the running agents finish and merge; a limited run between other outcomes starts the count again; 0 never stops', () => {
    const loop = loopOf(five, { config: { maxAgents: 2, maxLimitedInARow: 1 } });
    assert.deepEqual(show(loop.begin()), ['start A', 'start B']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'rate-limited' })), [], 'no wait, nothing new starts: B still runs');
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' })), ['merge B']);
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'B', outcome: 'merged' })), ['stop rate-limit']);
    const never = loopOf(five, { config: { maxAgents: 1, maxLimitedInARow: 0 } });
    never.begin();
    for (let k = 0; k < 8; k++) {
      assert.deepEqual(show(never.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'rate-limited' })), ['limitWait A']);
      assert.deepEqual(show(never.handle({ kind: 'limitEnded' })), ['start A']);
    }
    const streaks = loopOf(five, { config: { maxAgents: 1, maxLimitedInARow: 2 } });
    streaks.begin();
    for (const id of ['A', 'B', 'C']) {
      assert.deepEqual(show(streaks.handle({ kind: 'agentEnded', storyId: id, outcome: 'rate-limited' })), [`limitWait ${id}`]);
      assert.deepEqual(show(streaks.handle({ kind: 'limitEnded' })), [`start ${id}`]);
      assert.deepEqual(show(streaks.handle({ kind: 'agentEnded', storyId: id, outcome: 'passed' })), [`merge ${id}`, `start ${String.fromCharCode(id.charCodeAt(0) + 1)}`]);
      assert.deepEqual(show(streaks.handle({ kind: 'merged', storyId: id, outcome: 'merged' })), []);
    }
  });

  it('the failure breaker is per story: a story that failed twice needs you, the others go on', () => {
    const loop = loopOf([{ id: 'A', priority: 1 }, { id: 'B', priority: 2 }, { id: 'C', priority: 3, blockedBy: ['A'] }], { config: { maxAgents: 2 } });
    assert.deepEqual(show(loop.begin()), ['start A', 'start B']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'failed' })), ['start A']);
    const second = loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'failed', message: 'exit code 1' });
    assert.deepEqual(show(second), ['needsYou A failures']);
    assert.equal(loop.needsYou[0].message, 'A needs you: its agent exited with an error 2 times in a row (exit code 1).');
    loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' });
    const stop = loop.handle({ kind: 'merged', storyId: 'B', outcome: 'merged' });
    assert.deepEqual(show(stop), ['stop failures']);
    const s = stop[0] as ParallelStop;
    assert.equal(s.message, 'Stopped: a story needs you (A) and nothing else can run (1/3 stories pass).');
    assert.deepEqual(s.details, ['A: needs you: its agent exited with an error 2 times in a row (exit code 1)', 'C: waits on A, which has not merged']);
    assert.deepEqual(s.needsYou.map((n) => n.storyId), ['A']);
  });

  it('the no-progress breaker is per story too', () => {
    const loop = loopOf(five.slice(0, 1), { config: { noProgressLimit: 2 } });
    loop.begin();
    loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'no-progress' });
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'no-progress' })), ['needsYou A no-progress', 'stop no-progress']);
  });

  it('a merge conflict stops that story only; Retry runs it again with its breakers reset', () => {
    const loop = loopOf(five.slice(0, 2), { config: { maxAgents: 1 } });
    assert.deepEqual(show(loop.begin()), ['start A']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'passed' })), ['merge A', 'start B']);
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' })), []);
    loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' });
    const conflict = loop.handle({ kind: 'merged', storyId: 'B', outcome: 'conflict', message: 'src/b.ts' });
    assert.deepEqual(show(conflict), ['needsYou B conflict', 'stop needs-you']);
    assert.equal((conflict[1] as ParallelStop).message, 'Stopped: a story needs you (B) and nothing else can run (1/2 stories pass).');
    assert.deepEqual(loop.handle({ kind: 'retry', storyId: 'B' }), [], 'after the stop, nothing');

    const again = loopOf(five.slice(0, 2), { config: { maxAgents: 2 } });
    again.begin();
    again.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' });
    again.handle({ kind: 'merged', storyId: 'B', outcome: 'check-failed' });
    assert.equal(again.phaseOf('B'), 'needs-you');
    assert.deepEqual(show(again.handle({ kind: 'retry', storyId: 'B' })), ['start B']);
  });

  it('Stop After This Iteration starts nothing new, lets running agents finish and merges their work', () => {
    const loop = loopOf(five, { config: { maxAgents: 2 } });
    loop.begin();
    assert.deepEqual(show(loop.handle({ kind: 'stopRequested', mode: 'after-iteration' })), []);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'passed' })), ['merge A']);
    assert.deepEqual(show(loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' })), []);
    const stop = loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'no-progress' });
    assert.deepEqual(show(stop), ['stop stop-requested']);
    assert.equal((stop[0] as ParallelStop).message, 'Stopped: you asked to stop after the running iterations; 2 iterations ran, their finished work merged (1/5 stories pass).');
  });

  it('Stop All ends every running agent; a single stopped agent waits for you instead of restarting', () => {
    const loop = loopOf(five, { config: { maxAgents: 2 } });
    loop.begin();
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'stopped' })), ['needsYou A stopped', 'start C']);
    assert.deepEqual(show(loop.handle({ kind: 'stopRequested', mode: 'now' })), ['stopAgent B', 'stopAgent C']);
    loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'stopped' });
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'C', outcome: 'stopped' })), ['stop stop-requested']);
    assert.equal(loop.phaseOf('B'), 'pending');
  });

  it('stops at once with the serial loop\'s words when prd.json is missing, unreadable, or every story passes', () => {
    const missing = new ParallelLoop(undefined);
    assert.deepEqual(show(missing.begin()), ['stop prd-missing']);
    assert.deepEqual(missing.begin(), [], 'one stop, however often it is asked');
    assert.deepEqual(show(new ParallelLoop(analyzePrd('{"userStories": 3}')).begin()), ['stop invalid-prd']);
    const done = loopOf([{ id: 'A', passes: true }]).begin();
    assert.deepEqual(show(done), ['stop all-pass']);
    assert.equal((done[0] as ParallelStop).message, 'Stopped: every story passes (1/1).');
    assert.deepEqual(show(loopOf([{ id: 'A', blockedBy: ['B'] }, { id: 'B', blockedBy: ['A'] }]).begin()), ['stop nothing-ready']);
  });

  it('an event that does not fit the state changes nothing', () => {
    const loop = loopOf(five.slice(0, 2), { config: { maxAgents: 1 } });
    loop.begin();
    assert.deepEqual(loop.handle({ kind: 'agentEnded', storyId: 'B', outcome: 'passed' }), []);
    assert.deepEqual(loop.handle({ kind: 'agentEnded', storyId: 'nope', outcome: 'failed' }), []);
    assert.deepEqual(loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' }), []);
    assert.deepEqual(loop.handle({ kind: 'retry', storyId: 'A' }), []);
    assert.deepEqual(loop.handle({ kind: 'skip', storyId: 'A' }), []);
    assert.equal(loop.phaseOf('A'), 'running');
    assert.equal(loop.status.iterations, 1);
  });

  it('Skip Story: a skipped story does not run, and what waits on it cannot either', () => {
    const loop = loopOf([{ id: 'A', priority: 1 }, { id: 'B', priority: 2 }, { id: 'C', priority: 3, blockedBy: ['B'] }], { config: { maxAgents: 1 } });
    loop.begin();
    assert.deepEqual(show(loop.handle({ kind: 'skip', storyId: 'B' })), []);
    loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'passed' });
    const stop = loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' });
    assert.deepEqual(show(stop), ['stop nothing-ready']);
    assert.deepEqual((stop[0] as ParallelStop).details, ['B: skipped (you chose Skip Story)', 'C: waits on B, which has not merged']);
  });

  it('a run of chosen stories (run --story, Run Wave) ends when they pass; the others are counted as not part of it, not called skipped', () => {
    const loop = loopOf([{ id: 'A', priority: 1 }, { id: 'B', priority: 2 }, { id: 'C', priority: 3, blockedBy: ['A'] }], { only: ['A'] });
    assert.deepEqual(show(loop.begin()), ['start A']);
    loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'passed' });
    const stop = loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' });
    assert.deepEqual(show(stop), ['stop all-pass']);
    assert.equal((stop[0] as ParallelStop).message, 'Stopped: every story this run took passes (1/3 stories pass).');
    assert.deepEqual((stop[0] as ParallelStop).details, ['2 other stories were not part of this run.']);

    // A chosen story that fails is listed with its reason; the user's Skip Story keeps its words.
    const two = loopOf([{ id: 'A', priority: 1 }, { id: 'B', priority: 2 }, { id: 'C', priority: 3 }], { only: ['A', 'B'], config: { maxAgents: 1, failureLimit: 1 } });
    assert.deepEqual(show(two.begin()), ['start A']);
    two.handle({ kind: 'skip', storyId: 'B' });
    const failed = two.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'failed' });
    const end = failed.find((c): c is ParallelStop => c.kind === 'stop');
    assert.ok(end, show(failed).join(', '));
    assert.deepEqual(end.details.slice(1), ['B: skipped (you chose Skip Story)', '1 other story was not part of this run.']);
    assert.match(end.details[0], /^A: needs you: /);
  });

  it('the stop names every story left behind, one that waits on itself included; duplicate ids stop at once as the serial loop does', () => {
    const loop = loopOf([{ id: 'A', priority: 1 }, { id: 'B', priority: 3, blockedBy: ['B'] }, { id: 'C', blockedBy: ['B'] }]);
    assert.deepEqual(show(loop.begin()), ['start A']);
    loop.handle({ kind: 'agentEnded', storyId: 'A', outcome: 'passed' });
    const stop = loop.handle({ kind: 'merged', storyId: 'A', outcome: 'merged' });
    assert.deepEqual(show(stop), ['stop nothing-ready']);
    assert.equal((stop[0] as ParallelStop).message, 'Stopped: nothing is ready — 2 stories remain and none can run (1/3 stories pass).');
    assert.deepEqual((stop[0] as ParallelStop).details, ['B: cannot run: it waits on itself', 'C: waits on B, which has not merged']);
    assert.deepEqual(show(loopOf([{ id: 'A' }, { id: 'A' }]).begin()), ['stop invalid-prd']);
  });
});
