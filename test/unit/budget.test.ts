/** Budget caps in the loop rules: the serial LoopController and the parallel loop stop spending at a cap. */
import assert from 'node:assert/strict';
import { BudgetTracker, formatDollars, type RunSpend, tokenTotal } from '../../src/core/insights/budget';
import { type IterationResult, LoopController, type StopStep } from '../../src/core/loop/loop';
import { type ParallelCommand, ParallelLoop } from '../../src/core/loop/parallelLoop';
import { analyzePrd } from '../../src/core/prd/index';
import { makePrd } from './helpers';

const claude = (cost: number): RunSpend => ({ cost, tokens: tokenTotal({ input: 4, output: 100, cacheRead: 1000, cacheWrite: 0 }, false) });

/** An iteration that made no progress (the story still fails), with what it reported spending. */
const noProgress = (storyId: string, spent?: RunSpend): IterationResult => ({ storyId, exitCode: 0, passingBefore: 0, passingAfter: 0, storyPasses: false, completeSignal: false, spent });

const show = (commands: readonly ParallelCommand[]): string[] =>
  commands.map((c) => (c.kind === 'stop' ? `stop ${c.reason}` : c.kind === 'needsYou' ? `needsYou ${c.item.storyId} ${c.item.why}` : `${c.kind} ${c.storyId}`));

describe('budget caps', () => {
  const prd = analyzePrd(makePrd([{ id: 'US-001' }, { id: 'US-002' }, { id: 'US-003' }]));

  it('serial: no further iteration once the loop has spent its cost cap; the message names the cap, the amount, the runs and the unknown ones', () => {
    const loop = new LoopController({ maxIterations: 20, noProgressLimit: 20, budget: { maxCostPerLoop: 5 } });
    const spends = [claude(2), undefined, claude(2.5), {}, claude(0.62)];
    for (const s of spends) {
      assert.equal(loop.nextStep(prd).kind, 'run');
      loop.recordIteration(noProgress('US-001', s));
    }
    const stop = loop.nextStep(prd) as StopStep;
    assert.equal(stop.kind, 'stop');
    assert.equal(stop.reason, 'budget');
    assert.equal(stop.message, "Stopped: the loop's cost cap $5.00 is reached ($5.12 spent in 5 runs; 2 runs reported no cost) (0/3 stories pass).");
  });

  it('serial: the token cap counts what the agents reported (Codex input already holds its cached tokens)', () => {
    assert.equal(tokenTotal({ input: 4, output: 100, cacheRead: 1000, cacheWrite: 10 }, false), 1114);
    assert.equal(tokenTotal({ input: 6040, output: 129, cacheRead: 4992, cacheWrite: 0 }, true), 6169);
    const loop = new LoopController({ maxIterations: 20, noProgressLimit: 20, budget: { maxTokensPerLoop: 2000 } });
    loop.recordIteration(noProgress('US-001', claude(0.01)));
    assert.equal(loop.nextStep(prd).kind, 'run', '1,104 tokens: under the cap');
    loop.recordIteration(noProgress('US-001', claude(0.01)));
    const stop = loop.nextStep(prd) as StopStep;
    assert.equal(stop.reason, 'budget');
    assert.match(stop.message, /^Stopped: the loop's token cap 2,000 is reached \(2,208 tokens used in 2 runs\)/);
  });

  it('serial: a story over its own cost cap is not started again; the next ready story runs, and when none is left the loop stops saying why', () => {
    const loop = new LoopController({ maxIterations: 20, noProgressLimit: 20, budget: { maxCostPerStory: 1 } });
    loop.recordIteration(noProgress('US-001', claude(0.6)));
    assert.equal((loop.nextStep(prd) as { storyId: string }).storyId, 'US-001');
    loop.recordIteration(noProgress('US-001', claude(0.6)));
    assert.equal((loop.nextStep(prd) as { storyId: string }).storyId, 'US-002', 'US-001 spent $1.20 of its $1.00');
    loop.recordIteration(noProgress('US-002', claude(1)));
    loop.recordIteration(noProgress('US-003', claude(1.5)));
    const stop = loop.nextStep(prd) as StopStep;
    assert.equal(stop.reason, 'budget');
    assert.match(stop.message, /^Stopped: every ready story is over its cost cap \(US-001: its cost cap \$1\.00 is reached \(\$1\.20 spent in 2 runs\); US-002: .*; US-003: .*\)/);
  });

  it('no cap set, or a cap of 0: nothing changes', () => {
    const loop = new LoopController({ maxIterations: 3, noProgressLimit: 20, budget: { maxCostPerLoop: 0 } });
    loop.recordIteration(noProgress('US-001', claude(100)));
    assert.equal(loop.nextStep(prd).kind, 'run');
    assert.equal(new BudgetTracker({}).active, false);
    assert.deepEqual([formatDollars(5.12), formatDollars(0.0332), formatDollars(0.0041), formatDollars(0)], ['$5.12', '$0.03', '$0.0041', '$0.00']);
  });

  it('parallel: a story over its cap needs you and is not started again; the loop cap starts nothing new and stops with the budget reason', () => {
    const loop = new ParallelLoop(prd, { config: { maxAgents: 2, noProgressLimit: 5 }, budget: { maxCostPerStory: 1, maxCostPerLoop: 3 } });
    assert.deepEqual(show(loop.begin()), ['start US-001', 'start US-002']);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'US-001', outcome: 'no-progress', spent: claude(1.1) })), ['needsYou US-001 budget', 'start US-003']);
    assert.match(loop.needsYou[0].message, /^US-001 needs you: its cost cap \$1\.00 is reached \(\$1\.10 spent in 1 run\)/);
    assert.deepEqual(show(loop.handle({ kind: 'agentEnded', storyId: 'US-002', outcome: 'no-progress', spent: claude(0.5) })), ['start US-002']);
    // $1.10 + $0.50 + $1.50 = $3.10: nothing new starts, the running one finishes, the loop stops.
    const end = loop.handle({ kind: 'agentEnded', storyId: 'US-003', outcome: 'no-progress', spent: claude(1.5) });
    assert.deepEqual(show(end), ['needsYou US-003 budget']);
    const stop = loop.handle({ kind: 'agentEnded', storyId: 'US-002', outcome: 'no-progress' });
    const last = stop[stop.length - 1];
    assert.equal(last.kind === 'stop' && last.reason, 'budget');
    assert.match(last.kind === 'stop' ? last.message : '', /^Stopped: the loop's cost cap \$3\.00 is reached \(\$3\.10 spent in 4 runs; 1 run reported no cost\)/);
  });
});
