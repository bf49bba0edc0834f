/** The loop state machine against simulated agents, and the COMPLETE-signal detector. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LimitVerdict } from '../../src/core/insights/limits';
import { planAgentCommand } from '../../src/core/loop/iteration';
import { type IterationRecord, type IterationResult, iterationOutcome, LoopController, type LoopStep, type StopStep } from '../../src/core/loop/loop';
import { COMPLETE_SIGNAL, CompleteSignalDetector, detectCompleteSignal, stripAnsi } from '../../src/core/output';
import { analyzePrd, type PrdAnalysis } from '../../src/core/prd/index';
import { applyEdits, setPassesEdits } from '../../src/core/prd/edits';
import { makePrd, type StoryInput } from './helpers';

/** What a simulated agent does with the story it was given: returns the new prd.json text (or undefined: deleted). */
type Agent = (
  text: string,
  storyId: string,
  iteration: number,
) => { text: string | undefined; exitCode?: number | null; complete?: boolean; stopped?: boolean; limit?: LimitVerdict };

const passStory = (text: string, id: string): string => {
  const a = analyzePrd(text);
  const s = a.doc.stories.find((x) => x.id === id);
  assert.ok(s, `no story ${id}`);
  return applyEdits(text, setPassesEdits(text, s.index, true));
};

const honest: Agent = (text, id) => {
  const after = passStory(text, id);
  return { text: after, exitCode: 0, complete: analyzePrd(after).readiness.state === 'complete' };
};

interface LoopRun {
  ran: string[];
  stop: StopStep;
  records: IterationRecord[];
  text: string | undefined;
}

/** Drives the controller like the extension does: analyse, ask, run, re-read, record. */
function drive(loop: LoopController, initial: string | undefined, agent: Agent, onRecord?: (r: IterationRecord, loop: LoopController) => void): LoopRun {
  let text = initial;
  const ran: string[] = [];
  const records: IterationRecord[] = [];
  for (let guard = 0; guard < 100; guard++) {
    const before: PrdAnalysis | undefined = text === undefined ? undefined : analyzePrd(text);
    const step: LoopStep = loop.nextStep(before);
    if (step.kind === 'stop') {
      return { ran, stop: step, records, text };
    }
    assert.equal(step.iteration, ran.length + 1);
    ran.push(step.storyId);
    const out = agent(text as string, step.storyId, step.iteration);
    text = out.text;
    const after = text === undefined ? undefined : analyzePrd(text);
    const result: IterationResult = {
      storyId: step.storyId,
      exitCode: out.exitCode === undefined ? 0 : out.exitCode,
      passingBefore: before?.readiness.counts.done ?? 0,
      passingAfter: after?.readiness.counts.done ?? 0,
      totalAfter: after?.readiness.counts.total,
      storyPasses: after?.doc.stories.find((s) => s.id === step.storyId)?.passes ?? false,
      completeSignal: out.complete ?? false,
      stopped: out.stopped,
      prdReadable: after !== undefined && after.readable,
      limit: out.limit,
    };
    const rec = loop.recordIteration(result);
    records.push(rec);
    onRecord?.(rec, loop);
  }
  throw new Error('loop did not stop');
}

// C is blocked by B, B by A; priorities say C first, dependencies say A first.
const chain: StoryInput[] = [
  { id: 'US-003', title: 'Third', priority: 1, blockedBy: ['US-002'] },
  { id: 'US-001', title: 'First', priority: 3 },
  { id: 'US-002', title: 'Second', priority: 2, blockedBy: ['US-001'] },
];

describe('loop controller', () => {
  it('completes a blocked chain in dependency order and stops with "every story passes"', () => {
    const run = drive(new LoopController(), makePrd(chain), honest);
    assert.deepEqual(run.ran, ['US-001', 'US-002', 'US-003']);
    assert.equal(run.stop.reason, 'all-pass');
    assert.equal(run.stop.message, 'Stopped: every story passes (3/3).');
    assert.deepEqual(
      run.records.map((r) => r.outcome),
      ['passed', 'passed', 'passed'],
    );
    assert.match(run.records[2].notes.join(' '), /signalled COMPLETE and every story passes \(3\/3\)/);
  });

  it('runs the demo workspace DAG by priority among ready stories', () => {
    const demo: StoryInput[] = [
      { id: 'A', priority: 1, passes: true },
      { id: 'B', priority: 6, blockedBy: ['A'] },
      { id: 'C', priority: 5, blockedBy: ['A'] },
      { id: 'D', priority: 2, blockedBy: ['B', 'C'] },
      { id: 'E', priority: 9 },
    ];
    const run = drive(new LoopController(), makePrd(demo), honest);
    assert.deepEqual(run.ran, ['C', 'B', 'D', 'E']);
    assert.equal(run.stop.reason, 'all-pass');
  });

  it('does not stop on a too-early COMPLETE: logs a false completion and goes on', () => {
    const early: Agent = (text, id) => ({ text: passStory(text, id), exitCode: 0, complete: true });
    const run = drive(new LoopController(), makePrd(chain), early);
    assert.deepEqual(run.ran, ['US-001', 'US-002', 'US-003']);
    assert.equal(run.stop.reason, 'all-pass');
    assert.deepEqual(
      run.records.map((r) => [r.outcome, r.falseComplete]),
      [
        ['false-complete', true],
        ['false-complete', true],
        ['passed', false],
      ],
    );
    assert.match(run.records[0].notes[0], /^False completion: the agent printed <promise>COMPLETE<\/promise> but 2 stories still fail in prd\.json \(1\/3 pass\); the loop goes on\.$/);
    const loop = new LoopController();
    drive(loop, makePrd(chain), early);
    assert.equal(loop.status.falseCompletions, 2);
  });

  it('trips the no-progress breaker after K iterations in which no story turned to passing', () => {
    const stuck: Agent = (text) => ({ text, exitCode: 0 });
    const run = drive(new LoopController(), makePrd(chain), stuck);
    assert.deepEqual(run.ran, ['US-001', 'US-001']);
    assert.equal(run.stop.reason, 'no-progress');
    assert.equal(run.stop.message, 'Stopped: no story turned to passing in 2 consecutive iterations (last: US-001). Read progress.txt and the agent output before running again (0/3 stories pass).');
    assert.deepEqual(
      run.records.map((r) => r.outcome),
      ['no-progress', 'no-progress'],
    );

    const three = drive(new LoopController({ noProgressLimit: 3 }), makePrd(chain), stuck);
    assert.equal(three.ran.length, 3);
  });

  it('resets the no-progress count when a story passes', () => {
    // Fails to make progress every other iteration: never two in a row.
    const flaky: Agent = (text, id, i) => (i % 2 === 1 ? { text, exitCode: 0 } : { text: passStory(text, id), exitCode: 0 });
    const run = drive(new LoopController(), makePrd(chain), flaky);
    assert.equal(run.stop.reason, 'all-pass');
    assert.equal(run.ran.length, 6);
  });

  it('trips the failure breaker after K consecutive non-zero exits', () => {
    const failing: Agent = (text) => ({ text, exitCode: 3 });
    const run = drive(new LoopController({ noProgressLimit: 5 }), makePrd(chain), failing);
    assert.equal(run.stop.reason, 'failures');
    assert.equal(run.ran.length, 2);
    assert.match(run.stop.message, /^Stopped: the agent exited with an error in 2 consecutive iterations \(last: exit code 3 on US-001\)/);
    assert.deepEqual(
      run.records.map((r) => r.outcome),
      ['failed', 'failed'],
    );
    assert.match(run.records[0].notes.join(' '), /exited with code 3 \(failure 1\/2\)/);
  });

  it('a rate-limited run counts toward neither breaker nor the maximum, and the same story runs again', () => {
    const limit: LimitVerdict = { limited: true, kind: 'usage-limit', message: 'Claude AI usage limit reached|1755615600' };
    const limited: Agent = (text, id, i) => (i <= 3 ? { text, exitCode: 1, limit } : honest(text, id, i));
    const loop = new LoopController({ maxIterations: 3, failureLimit: 1, noProgressLimit: 1 });
    const run = drive(loop, makePrd(chain), limited);
    assert.equal(run.stop.reason, 'all-pass', run.stop.message);
    assert.deepEqual(run.ran, ['US-001', 'US-001', 'US-001', 'US-001', 'US-002', 'US-003']);
    assert.deepEqual(run.records.map((r) => r.outcome), ['rate-limited', 'rate-limited', 'rate-limited', 'passed', 'passed', 'passed']);
    assert.match(run.records[0].notes.join(' '), /usage limit \(not counted as a failure\)/);
    assert.equal(loop.status.consecutiveFailures, 0);
  });

  it('after a rate-limited run the story the user picked runs again, and a limit in a row is counted', () => {
    const limit: LimitVerdict = { limited: true, kind: 'rate-limit', message: 'API Error: Rate limit reached' };
    const streaks: number[] = [];
    const limited: Agent = (text, id, i) => (i <= 2 ? { text, exitCode: 1, limit } : honest(text, id, i));
    const run = drive(new LoopController({ maxIterations: 1, firstStory: 'US-003' }), makePrd(chain), limited, (_r, loop) => streaks.push(loop.status.limitedInARow));
    assert.deepEqual(run.ran, ['US-003', 'US-003', 'US-003']);
    assert.deepEqual(streaks, [1, 2, 0]);
    assert.equal(run.stop.reason, 'max-iterations');
  });

  it('after ralph.agent.maxLimitedInARow limited runs in a row the loop stops (rate-limit), naming the count and the last reset the agent printed; 0 never stops', () => {
    const reset = new Date('2026-11-26T15:00:00Z');
    const limit: LimitVerdict = { limited: true, kind: 'usage-limit', message: 'Claude AI usage limit reached|1795791600', resetAt: reset };
    const always: Agent = (text) => ({ text, exitCode: 1, limit });
    const three = drive(new LoopController({ maxLimitedInARow: 3 }), makePrd(chain), always);
    assert.deepEqual(three.ran, ['US-001', 'US-001', 'US-001']);
    assert.equal(three.stop.reason, 'rate-limit');
    assert.equal(
      three.stop.message,
      'Stopped: the agent hit its usage or rate limit in 3 runs in a row (last: US-001; it said the limit resets at 2026-11-26 15:00 UTC) (0/3 stories pass). Each retry is a paid run, so the loop waits no longer: run it again after the reset, or raise ralph.agent.maxLimitedInARow (3; 0: never stop).',
    );
    // the default is 5; no reset printed: the message says so
    const noReset: Agent = (text) => ({ text, exitCode: 1, limit: { limited: true, kind: 'rate-limit', message: 'API Error: Rate limit reached' } });
    const five = drive(new LoopController(), makePrd(chain), noReset);
    assert.equal(five.ran.length, 5);
    assert.match(five.stop.message, /in 5 runs in a row \(last: US-001; it printed no reset time\)/);
    // 0: never; the loop goes on until the limit lifts
    const lifts: Agent = (text, id, i) => (i <= 7 ? { text, exitCode: 1, limit } : honest(text, id, i));
    const never = drive(new LoopController({ maxLimitedInARow: 0 }), makePrd(chain), lifts);
    assert.equal(never.stop.reason, 'all-pass', never.stop.message);
    assert.equal(never.ran.length, 10);
  });

  it('the limit breaker counts limited runs in a row: another outcome between them starts the count again', () => {
    const limit: LimitVerdict = { limited: true, kind: 'rate-limit', message: 'API Error: Rate limit reached' };
    // limited, limited, a pass, limited, limited: never 3 in a row
    const mixed: Agent = (text, id, i) => (i === 3 || i >= 6 ? honest(text, id, i) : { text, exitCode: 1, limit });
    const run = drive(new LoopController({ maxLimitedInARow: 3 }), makePrd(chain), mixed);
    assert.equal(run.stop.reason, 'all-pass', run.stop.message);
  });

  it('a stop while the loop waits for the agent\'s limit says so, not that an agent was ended', () => {
    const limit: LimitVerdict = { limited: true, kind: 'usage-limit', message: 'Claude AI usage limit reached|1795791600' };
    for (const mode of ['now', 'after-iteration'] as const) {
      const loop = new LoopController();
      const prd = analyzePrd(makePrd(chain));
      const step = loop.nextStep(prd);
      assert.equal(step.kind, 'run');
      loop.recordIteration({ storyId: 'US-001', exitCode: 1, passingBefore: 0, passingAfter: 0, totalAfter: 3, storyPasses: false, completeSignal: false, limit, agent: 'claude' });
      loop.limitWait(true);
      loop.requestStop(mode);
      loop.limitWait(false);
      const stop = loop.nextStep(prd);
      assert.equal(stop.kind, 'stop');
      assert.equal(stop.reason, 'stop-requested');
      assert.equal(stop.message, "Stopped: you stopped the loop while it waited for claude's limit to reset (after 1 iteration, last story US-001); no agent was running (0/3 stories pass).");
    }
  });

  it('a limit message from a run that exited 0 or was stopped is no limit', () => {
    const limit: LimitVerdict = { limited: true, kind: 'rate-limit', message: 'rate limit' };
    const base = { storyId: 'US-1', passingBefore: 0, passingAfter: 0, storyPasses: false, completeSignal: false, limit };
    assert.equal(iterationOutcome({ ...base, exitCode: 0 }), 'no-progress');
    assert.equal(iterationOutcome({ ...base, exitCode: null, stopped: true }), 'stopped');
    assert.equal(iterationOutcome({ ...base, exitCode: 1 }), 'rate-limited');
    assert.equal(iterationOutcome({ ...base, exitCode: 1, storyPasses: true, passingAfter: 1 }), 'passed');
  });

  it('counts a story that passes despite a non-zero exit as progress, and resets failures on exit 0', () => {
    const weird: Agent = (text, id, i) => (i === 2 ? { text: passStory(text, id), exitCode: 1 } : i === 1 ? { text, exitCode: 1 } : honest(text, id, i));
    const run = drive(new LoopController({ failureLimit: 3 }), makePrd(chain), weird);
    assert.equal(run.stop.reason, 'all-pass');
    assert.equal(run.records[1].outcome, 'passed');
    assert.match(run.records[1].notes.join(' '), /US-001 passes in prd\.json although the agent exited with code 1/);
    // Unknown exit codes (no shell integration) neither count as failures nor reset them.
    const loop = new LoopController({ failureLimit: 2, noProgressLimit: 9 });
    const r2 = drive(loop, makePrd(chain), (text, _id, i) => ({ text, exitCode: i === 2 ? null : 1 }));
    assert.equal(r2.stop.reason, 'failures');
    assert.equal(r2.ran.length, 3);
  });

  it('stops cleanly after the current iteration when asked', () => {
    const run = drive(new LoopController(), makePrd(chain), honest, (rec, loop) => {
      if (rec.iteration === 1) {
        loop.requestStop('after-iteration');
      }
    });
    assert.deepEqual(run.ran, ['US-001']);
    assert.equal(run.stop.reason, 'stop-requested');
    assert.equal(run.stop.message, 'Stopped: you asked to stop after the current iteration; 1 iteration ran (1/3 stories pass).');
  });

  it('stops now: the iteration is recorded as stopped', () => {
    const loop = new LoopController();
    loop.requestStop('after-iteration');
    loop.requestStop('now');
    loop.requestStop('after-iteration');
    assert.equal(loop.status.stopRequested, 'now');
    const run = drive(new LoopController(), makePrd(chain), (text, _id, i) => {
      return i === 2 ? { text, exitCode: null, stopped: true } : honest(text, _id, i);
    }, (rec, l) => {
      if (rec.iteration === 1) {
        // The user clicks "Stop now" during iteration 2: simulated by the agent result above.
        l.requestStop('now');
      }
    });
    // The request arrived before iteration 2 could start in this simulation.
    assert.equal(run.ran.length, 1);
    assert.match(run.stop.message, /^Stopped: you stopped the loop; the agent was ended after 1 iteration \(last story US-001\)/);

    const hang = new LoopController();
    const a = analyzePrd(makePrd(chain));
    const step = hang.nextStep(a);
    assert.equal(step.kind, 'run');
    hang.requestStop('now');
    const rec = hang.recordIteration({ storyId: 'US-001', exitCode: null, passingBefore: 0, passingAfter: 0, totalAfter: 3, storyPasses: false, completeSignal: false, stopped: true });
    assert.equal(rec.outcome, 'stopped');
    assert.match(rec.notes[0], /ended by "Stop now"/);
    assert.equal(hang.nextStep(a).kind, 'stop');
    assert.equal(hang.status.consecutiveFailures, 0);
  });

  it('stops at the maximum number of iterations', () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ id: `US-${String(i + 1).padStart(3, '0')}`, priority: i + 1 }));
    const run = drive(new LoopController({ maxIterations: 3 }), makePrd(many), honest);
    assert.deepEqual(run.ran, ['US-001', 'US-002', 'US-003']);
    assert.equal(run.stop.reason, 'max-iterations');
    assert.equal(run.stop.message, 'Stopped: reached the maximum of 3 iterations (3/12 stories pass).');
    const def = drive(new LoopController(), makePrd(many), honest);
    assert.equal(def.ran.length, 10);
    const bad = new LoopController({ maxIterations: 0, noProgressLimit: Number.NaN, failureLimit: -1, maxLimitedInARow: -1 });
    assert.deepEqual({ ...bad.config, prdLabel: undefined }, { maxIterations: 10, noProgressLimit: 2, failureLimit: 2, maxLimitedInARow: 5, prdLabel: undefined });
  });

  it('stops when nothing is ready and says which stories block the rest', () => {
    const cyc: StoryInput[] = [
      { id: 'A', passes: true },
      { id: 'B', blockedBy: ['C'] },
      { id: 'C', blockedBy: ['B'] },
      { id: 'D', blockedBy: ['C'] },
    ];
    const step = new LoopController().nextStep(analyzePrd(makePrd(cyc)));
    assert.equal(step.kind, 'stop');
    const stop = step as StopStep;
    assert.equal(stop.reason, 'nothing-ready');
    assert.match(stop.message, /^Stopped: nothing is ready — 3 stories remain and none can run\. /);
    assert.match(stop.message, /B → C → B is a dependency cycle/);
    assert.match(stop.message, /D waits on C, which can never become ready/);
    assert.ok(stop.details.length >= 2);

    // Blocked in the middle of a loop: the agent passes A, which unblocks nothing runnable.
    const tail: StoryInput[] = [{ id: 'A' }, { id: 'B', blockedBy: ['X'] }];
    const run = drive(new LoopController(), makePrd(tail), honest);
    assert.deepEqual(run.ran, ['A']);
    assert.equal(run.stop.reason, 'nothing-ready');
    assert.match(run.stop.message, /B waits on "X", which is not a story in prd\.json/);
  });

  it('stops on a missing or unreadable prd.json, also when the agent deletes it', () => {
    assert.deepEqual(new LoopController().nextStep(undefined), {
      kind: 'stop',
      reason: 'prd-missing',
      message: 'Stopped: prd.json does not exist. Create it or point ralph.prdPath at it.',
      details: [],
    });
    const invalid = new LoopController({ prdLabel: 'scripts/ralph/prd.json' }).nextStep(analyzePrd('{ "userStories": [ { "id": "A", } ] }'));
    assert.equal(invalid.kind, 'stop');
    assert.equal((invalid as StopStep).reason, 'invalid-prd');
    assert.match((invalid as StopStep).message, /^Stopped: scripts\/ralph\/prd\.json cannot be read as a list of stories \(line 1: JSON syntax error/);
    assert.match((invalid as StopStep).details[0], /^scripts\/ralph\/prd\.json:1:\d+: JSON syntax error/);

    const deleter: Agent = () => ({ text: undefined, exitCode: 0 });
    const run = drive(new LoopController(), makePrd(chain), deleter);
    assert.equal(run.stop.reason, 'prd-missing');
    assert.match(run.stop.message, /does not exist any more \(was it deleted or moved during the last iteration\?\)/);
    assert.equal(run.records[0].outcome, 'error');

    const empty = new LoopController().nextStep(analyzePrd(makePrd([])));
    assert.equal((empty as StopStep).reason, 'all-pass');
    assert.match((empty as StopStep).message, /has no stories/);
  });

  it('nextStep does not change the controller', () => {
    const loop = new LoopController();
    const a = analyzePrd(makePrd(chain));
    assert.deepEqual(loop.nextStep(a), loop.nextStep(a));
    assert.equal(loop.status.iterations, 0);
  });

  it('notes a passing story without its feat commit, and stories set back to failing', () => {
    const loop = new LoopController();
    const rec = loop.recordIteration({ storyId: 'US-001', exitCode: 0, passingBefore: 2, passingAfter: 3, totalAfter: 5, storyPasses: true, completeSignal: false, commit: null });
    assert.match(rec.notes.join(' '), /US-001 passes but no "feat: US-001 - …" commit was made/);
    const back = loop.recordIteration({ storyId: 'US-002', exitCode: 0, passingBefore: 3, passingAfter: 2, totalAfter: 5, storyPasses: false, completeSignal: false });
    assert.equal(back.outcome, 'no-progress');
    assert.match(back.notes.join(' '), /Fewer stories pass than before/);
  });

  it('classifies outcomes from the disk first', () => {
    const base: IterationResult = { storyId: 'X', exitCode: 0, passingBefore: 1, passingAfter: 1, totalAfter: 3, storyPasses: false, completeSignal: false };
    assert.equal(iterationOutcome(base), 'no-progress');
    assert.equal(iterationOutcome({ ...base, exitCode: 2 }), 'failed');
    assert.equal(iterationOutcome({ ...base, passingAfter: 2, storyPasses: true, exitCode: 2 }), 'passed');
    assert.equal(iterationOutcome({ ...base, completeSignal: true }), 'false-complete');
    assert.equal(iterationOutcome({ ...base, completeSignal: true, passingAfter: 3, storyPasses: true }), 'passed');
    assert.equal(iterationOutcome({ ...base, stopped: true, exitCode: null }), 'stopped');
    assert.equal(iterationOutcome({ ...base, prdReadable: false }), 'error');
  });
});

describe('COMPLETE signal detection', () => {
  it('finds the signal in plain, coloured and CRLF output', () => {
    assert.equal(detectCompleteSignal(`done\n${COMPLETE_SIGNAL}\n`), true);
    assert.equal(detectCompleteSignal('\x1b[32m<promise>\x1b[1mCOMPLETE\x1b[0m</promise>\x1b[0m\r\n'), true);
    assert.equal(detectCompleteSignal('<promise>COMP\r\nLETE</promise>'), true);
    assert.equal(detectCompleteSignal('\x1b]633;E;echo hi\x07<promise>COMPLETE</promise>\x1b]633;D;0\x07'), true);
    assert.equal(detectCompleteSignal('<promise>COMPLETE</promise'), false);
    assert.equal(detectCompleteSignal('<promise>complete</promise>'), false);
    assert.equal(detectCompleteSignal('<promise>INCOMPLETE</promise>'), false);
    assert.equal(stripAnsi('\x1b[31mred\x1b[0m \x1b]0;title\x07x'), 'red x');
  });

  it('finds the signal split across chunks at any point, escapes included', () => {
    const stream = `Working on US-006...\r\n\x1b[1m${COMPLETE_SIGNAL.slice(0, 9)}\x1b[22m${COMPLETE_SIGNAL.slice(9)}\x1b[0m\r\n`;
    for (let a = 0; a < stream.length; a++) {
      for (let b = a; b < stream.length; b += 3) {
        const d = new CompleteSignalDetector();
        const seen = [stream.slice(0, a), stream.slice(a, b), stream.slice(b)].map((c) => d.push(c));
        assert.equal(seen[2], true, `split at ${a}/${b}`);
        assert.equal(d.seen, true);
      }
    }
  });

  it('agrees with a whole-text search for random chunkings (property)', () => {
    const piece = fc.constantFrom('<promise>', 'COMPLETE', '</promise>', '\x1b[0m', '\x1b[38;5;12m', '\r\n', '\n', 'x', '<', '>', '\x1b]633;A\x07', 'COMP', 'LETE');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 6 }), (pieces, cuts) => {
        const text = pieces.join('');
        const expected = stripAnsi(text).replace(/[\r\n]/g, '').includes(COMPLETE_SIGNAL);
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((x, y) => x - y);
        const d = new CompleteSignalDetector();
        let prev = 0;
        for (const p of [...points, text.length]) {
          d.push(text.slice(prev, p));
          prev = p;
        }
        assert.equal(d.seen, expected, JSON.stringify({ text, points }));
      }),
      { numRuns: 300 },
    );
  });

  it('latches, and reset() starts over', () => {
    const d = new CompleteSignalDetector();
    assert.equal(d.push(COMPLETE_SIGNAL), true);
    assert.equal(d.push('more'), true);
    d.reset();
    assert.equal(d.seen, false);
    assert.equal(d.push('<promise>'), false);
  });
});

describe('planAgentCommand (the iteration module the runner uses)', () => {
  const vars = { promptFile: '/ws/.ralph/prompts/p.md', storyId: 'US-1', workspaceFolder: '/ws' };
  const onPath = (names: string[]) => ({ path: '/bin:/usr/bin', platform: 'posix' as const, exists: (p: string) => names.some((n) => p === `/usr/bin/${n}`) });

  it('for `cat ${promptFile} | my-agent` looks for my-agent, not cat', () => {
    const missing = planAgentCommand({ presetId: 'custom', command: 'cat ${promptFile} | my-agent', shell: 'posix', exists: () => false, vars, lookup: onPath(['cat']) });
    assert.equal(missing.ok, false);
    assert.match((missing as { message: string }).message, /"my-agent" was not found on PATH/);
    const found = planAgentCommand({ presetId: 'custom', command: 'cat ${promptFile} | my-agent', shell: 'posix', exists: () => false, vars, lookup: onPath(['my-agent']) });
    assert.ok(found.ok);
    assert.equal(found.executable, '/usr/bin/my-agent');
    assert.equal(found.commandLine, 'cat "$RALPH_PROMPT_FILE" | my-agent');
    assert.deepEqual(found.env, { RALPH_PROMPT_FILE: vars.promptFile, RALPH_STORY_ID: 'US-1', RALPH_WORKSPACE_FOLDER: '/ws' });
  });

  it('names the agent runs.jsonl records: the preset, or the program of a command line of the user\'s own (issue 18 item 5)', () => {
    const renderStream = { argv: ['node', '/ext/dist/cli.js', 'render-stream'] };
    const plan = (presetId: string, command: string) => planAgentCommand({ presetId, command, shell: 'posix', exists: () => false, vars, renderStream });
    const agentOf = (p: ReturnType<typeof plan>) => (p.ok ? p.agent : p.message);
    assert.equal(agentOf(plan('claude', '')), 'claude');
    assert.equal(agentOf(plan('codex', '')), 'codex');
    // The preset stays "claude" while a custom command line is what runs: it is recorded by its program.
    assert.equal(agentOf(plan('claude', 'my-agent --fast < ${promptFile}')), 'my-agent');
    assert.equal(agentOf(plan('custom', 'FAKE_AGENT_MODE=pass node "/x/fake agent.js" ${promptFile}')), 'node');
    assert.equal(agentOf(plan('custom', 'cat ${promptFile} | /opt/tools/agent-cli run')), 'agent-cli');
  });

  it('keeps the template warnings', () => {
    const r = planAgentCommand({ presetId: 'custom', command: 'my-agent --story ${storyId}', shell: 'posix', exists: () => false, vars, lookup: onPath(['my-agent']) });
    assert.ok(r.ok);
    assert.match(r.warnings[0], /does not use \$\{promptFile\}/);
  });

  it('says which setting to change for a hostile id or an unusable template', () => {
    const dash = planAgentCommand({ presetId: 'custom', command: 'a --story ${storyId} < ${promptFile}', shell: 'posix', exists: () => false, vars: { ...vars, storyId: '-x' } });
    assert.equal(dash.ok, false);
    assert.match((dash as { message: string }).message, /starts with "-"/);
    const open = planAgentCommand({ presetId: 'custom', command: 'a "${promptFile}', shell: 'posix', exists: () => false, vars });
    assert.match((open as { message: string }).message, /never closed/);
  });
});
