/**
 * Model-based property test of the parallel loop (issue 19): random backlogs, settings and random
 * sequences of what agents, merges and the user do. Whatever happens, the loop never runs two
 * stories predicted to change the same file at once (unless allowOverlap), never runs more than
 * maxAgents agents or more than maxIterations iterations, never starts a story whose blockers have
 * not merged, merges one story at a time and only finished ones, and always ends with one stop
 * whose reason is true.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { type AgentOutcome, type MergeOutcome, type ParallelCommand, type ParallelEvent, ParallelLoop, type ParallelStop } from '../../src/core/loop/parallelLoop';
import { guardedPaths, sharedFiles } from '../../src/core/loop/sameFile';
import { analyzePrd } from '../../src/core/prd/index';
import { makePrd, type StoryInput } from './helpers';

const POOL = ['a.ts', 'b.ts', 'src', 'src/c.ts', 'src/d.ts', 'prd.json', 'x/AGENTS.md'];
const AGENT_OUTCOMES: AgentOutcome[] = ['passed', 'passed', 'passed', 'failed', 'no-progress', 'stopped', 'question', 'error'];
const MERGE_OUTCOMES: MergeOutcome[] = ['merged', 'merged', 'merged', 'conflict', 'check-failed', 'error'];

const scenarioArb = fc.record({
  stories: fc.array(
    fc.record({
      passes: fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 4, arbitrary: fc.constant(false) }),
      deps: fc.array(fc.nat(11), { maxLength: 2 }),
      priority: fc.integer({ min: 0, max: 3 }),
      files: fc.subarray(POOL, { maxLength: 2 }),
    }),
    { minLength: 1, maxLength: 12 },
  ),
  // Dependencies on earlier stories only (a DAG), or on any story (cycles possible).
  dag: fc.boolean(),
  config: fc.record({
    maxAgents: fc.integer({ min: 1, max: 4 }),
    maxIterations: fc.integer({ min: 1, max: 30 }),
    failureLimit: fc.integer({ min: 1, max: 3 }),
    noProgressLimit: fc.integer({ min: 1, max: 3 }),
    allowOverlap: fc.boolean(),
  }),
  script: fc.array(fc.record({ action: fc.nat(), outcome: fc.nat(), files: fc.subarray(POOL, { maxLength: 2 }) }), { maxLength: 80 }),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function runScenario(s: Scenario): void {
  const n = s.stories.length;
  const ids = s.stories.map((_, i) => `S${i}`);
  const inputs: StoryInput[] = s.stories.map((st, i) => ({
    id: ids[i],
    priority: st.priority,
    passes: st.passes,
    blockedBy: [...new Set(st.deps.map((d) => (s.dag ? (i === 0 ? -1 : d % i) : d % n)).filter((d) => d >= 0 && d !== i))].map((d) => ids[d]),
  }));
  const { config } = s;
  const loop = new ParallelLoop(analyzePrd(makePrd(inputs)), { config, predictions: new Map(s.stories.map((st, i) => [ids[i], st.files])) });

  // The model: what the driver knows.
  const merged = new Set(inputs.filter((st) => st.passes).map((st) => st.id));
  const files = new Map(s.stories.map((st, i) => [ids[i], guardedPaths(st.files)]));
  const running = new Set<string>();
  const done = new Set<string>();
  let merging: string | undefined;
  const open = new Set<string>();
  const skipped = new Set<string>();
  let starts = 0;
  let stopAsked = false;
  let stop: ParallelStop | undefined;
  let userActions = 0;

  const startable = (id: string) => !merged.has(id) && !open.has(id) && !skipped.has(id) && !running.has(id) && !done.has(id) && merging !== id && (inputs[ids.indexOf(id)].blockedBy ?? []).every((d) => merged.has(d));

  const apply = (commands: readonly ParallelCommand[], label: string) => {
    for (const c of commands) {
      assert.equal(stop, undefined, `${label}: a command after the stop: ${JSON.stringify(c)}`);
      switch (c.kind) {
        case 'start': {
          const id = c.storyId;
          assert.ok(startable(id), `${label}: started ${id}, which is not startable (merged ${[...merged]}, open ${[...open]})`);
          assert.ok(!stopAsked, `${label}: started ${id} after a stop request`);
          starts++;
          assert.ok(starts <= config.maxIterations, `${label}: ${starts} starts, max ${config.maxIterations}`);
          assert.equal(c.iteration, starts);
          if (!config.allowOverlap) {
            for (const h of [...running, ...done, ...(merging ? [merging] : [])]) {
              assert.deepEqual(sharedFiles(files.get(id) ?? [], files.get(h) ?? []), [], `${label}: ${id} started while ${h} holds the same files`);
            }
          }
          assert.deepEqual(c.files, files.get(id));
          running.add(id);
          assert.ok(running.size <= config.maxAgents, `${label}: ${running.size} agents, max ${config.maxAgents}`);
          break;
        }
        case 'merge':
          assert.equal(merging, undefined, `${label}: a second merge at once`);
          assert.ok(done.has(c.storyId), `${label}: merged ${c.storyId}, which has not finished`);
          done.delete(c.storyId);
          merging = c.storyId;
          break;
        case 'stopAgent':
          assert.ok(running.has(c.storyId));
          break;
        case 'needsYou':
          assert.ok(!open.has(c.item.storyId), 'one item per story at a time');
          open.add(c.item.storyId);
          break;
        case 'stop':
          assert.equal(running.size, 0, `${label}: stopped with agents running`);
          assert.equal(merging, undefined, `${label}: stopped during a merge`);
          assert.equal(done.size, 0, `${label}: stopped with finished work unmerged`);
          stop = c;
          break;
      }
    }
  };

  const event = (e: ParallelEvent) => {
    if (e.kind === 'agentEnded') {
      running.delete(e.storyId);
      if (e.filesChanged) {
        files.set(e.storyId, guardedPaths([...(files.get(e.storyId) ?? []), ...e.filesChanged]));
      }
      if (e.outcome === 'passed') {
        done.add(e.storyId);
      }
    } else if (e.kind === 'merged') {
      merging = undefined;
      if (e.outcome === 'merged') {
        merged.add(e.storyId);
      }
    } else if (e.kind === 'stopRequested') {
      stopAsked = true;
    } else if (e.kind === 'retry') {
      open.delete(e.storyId);
    } else if (e.kind === 'skip') {
      open.delete(e.storyId);
      skipped.add(e.storyId);
    }
    apply(loop.handle(e), JSON.stringify(e));
  };

  apply(loop.begin(), 'begin');
  let k = 0;
  for (let steps = 0; stop === undefined && steps < 2000; steps++) {
    const step = k < s.script.length ? s.script[k++] : undefined;
    const actions: ParallelEvent[] = [];
    if (step) {
      for (const id of running) {
        actions.push({ kind: 'agentEnded', storyId: id, outcome: AGENT_OUTCOMES[step.outcome % AGENT_OUTCOMES.length], filesChanged: step.files });
      }
      if (merging) {
        actions.push({ kind: 'merged', storyId: merging, outcome: MERGE_OUTCOMES[step.outcome % MERGE_OUTCOMES.length] });
      }
      if (step.action % 17 === 0) {
        actions.push({ kind: 'stopRequested', mode: step.outcome % 2 === 0 ? 'now' : 'after-iteration' });
      }
      if (userActions < 6) {
        for (const id of open) {
          actions.push({ kind: step.outcome % 3 === 0 ? 'skip' : 'retry', storyId: id });
        }
      }
    } else if (merging) {
      actions.push({ kind: 'merged', storyId: merging, outcome: 'merged' });
    } else if (running.size > 0) {
      actions.push({ kind: 'agentEnded', storyId: [...running][0], outcome: 'passed' });
    }
    if (actions.length === 0) {
      if (step) {
        continue;
      }
      break;
    }
    const e = actions[(step?.action ?? 0) % actions.length];
    if (e.kind === 'retry' || e.kind === 'skip') {
      userActions++;
    }
    event(e);
  }

  assert.ok(stop, 'the loop ended with a stop');
  // The reason is true.
  const allPass = ids.every((id) => merged.has(id));
  // A stop request wins over "every story passes", as in the serial loop (its message gives the counts).
  assert.equal(stop.reason === 'all-pass', allPass && !stopAsked, `reason ${stop.reason}, all pass: ${allPass}, stop asked: ${stopAsked}`);
  if (stop.reason === 'stop-requested') {
    assert.ok(stopAsked);
  }
  if (stop.reason === 'max-iterations') {
    assert.equal(starts, config.maxIterations);
  }
  if (stop.reason === 'failures' || stop.reason === 'no-progress' || stop.reason === 'needs-you') {
    assert.ok(stop.needsYou.length > 0);
  }
  if (stop.reason === 'nothing-ready') {
    assert.equal(stop.needsYou.length, 0);
  }
  assert.deepEqual(stop.needsYou.map((i) => i.storyId).sort(), [...open].sort());
  // Not premature: unless stopped on request or at the limit, nothing was left that could start.
  if (stop.reason !== 'stop-requested' && stop.reason !== 'max-iterations') {
    assert.deepEqual(ids.filter(startable), [], `stopped (${stop.reason}) while stories could start`);
  }
  assert.ok(['all-pass', 'nothing-ready', 'max-iterations', 'stop-requested', 'no-progress', 'failures', 'needs-you'].includes(stop.reason));
}

describe('ParallelLoop, model-based: random backlogs and event sequences', () => {
  it('never overlaps, never exceeds maxAgents or maxIterations, never starts before the blockers merged, always stops with a true reason', () => {
    fc.assert(fc.property(scenarioArb, runScenario), { numRuns: 400 });
  });
});
