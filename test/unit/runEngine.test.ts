/**
 * The run engine with a fake executor: runs are objects with ids, several exist at once (one per
 * folder), each is recorded in its own folder's runs.jsonl under its own id, a stop reaches only
 * the run it names, and the one-run-per-folder rule keeps its message.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Clock } from '../../src/core/loop/clock';
import type { AgentExecutor, AgentExit, AgentHandle } from '../../src/core/loop/executor';
import { RunBusyError } from '../../src/core/loop/runSet';
import { analyzePrd, type PrdAnalysis } from '../../src/core/prd/index';
import { parseRuns } from '../../src/core/runs/runs';
import { RunEngine, type RunPorts } from '../../src/core/loop/engine';
import { recordIteration } from '../../src/node/runRecorder';
import { makePrd } from './helpers';

interface Folder {
  readonly name: string;
  readonly root: string;
}

/** An agent that runs until the test ends it (exit) or the engine stops it. */
class FakeAgent implements AgentHandle {
  readonly exit: Promise<AgentExit>;
  end!: (code: number) => void;
  private settle!: (e: AgentExit) => void;
  constructor(
    readonly cwd: string,
    /** What the agent prints (the engine reads it for the COMPLETE signal and limit messages). */
    readonly print: (text: string) => void = () => undefined,
  ) {
    this.exit = new Promise((resolve) => (this.settle = resolve));
    this.end = (code) => this.settle({ exitCode: code, stopped: false, via: 'process' });
  }
  async stop(): Promise<void> {
    this.settle({ exitCode: undefined, stopped: true, via: 'process' });
  }
  dispose(): void {}
}

/** Resolves when `check` holds, polled on the event loop, or fails after the deadline. */
async function until(what: string, check: () => boolean, deadlineMs = 5000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) {
      assert.fail(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setImmediate(r));
  }
}

describe('run engine: runs are objects, several at once', () => {
  const roots: string[] = [];
  after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  function folder(name: string): Folder {
    const root = mkdtempSync(path.join(tmpdir(), `ralph-engine-${name}-`));
    roots.push(root);
    return { name, root };
  }

  function engine(prds: Map<string, PrdAnalysis>, more: Partial<RunPorts<Folder, FakeAgent>> = {}): { engine: RunEngine<Folder, FakeAgent>; agents: FakeAgent[] } {
    const agents: FakeAgent[] = [];
    const executor: AgentExecutor<FakeAgent> = {
      start: (launch) => {
        const a = new FakeAgent(launch.cwd, (text) => launch.onOutput?.(text));
        agents.push(a);
        return a;
      },
    };
    const ports: RunPorts<Folder, FakeAgent> = {
      keyOf: (f) => f.root,
      read: async (f) => prds.get(f.root),
      preflight: async () => ({ runAnyway: false }),
      prepare: async (f, step) => ({
        promptFile: `.ralph/prompts/${step.storyId}.md`,
        agent: 'custom',
        launch: { name: `Ralph: ${step.storyId}`, cwd: f.root, commandLine: 'agent', env: {} },
        observe: async () => ({}),
      }),
      executor,
      record: (f, line, after) => recordIteration(f.root, line, after),
      log: { info: () => undefined, warn: () => undefined },
      ...more,
    };
    return { engine: new RunEngine(ports), agents };
  }

  it('two folders run at once, each a Run with its own id, recorded in its own runs.jsonl under that id', async () => {
    const a = folder('a');
    const b = folder('b');
    const prds = new Map([
      [a.root, analyzePrd(makePrd([{ id: 'A-1', title: 'In a' }]))],
      [b.root, analyzePrd(makePrd([{ id: 'B-1', title: 'In b' }]))],
    ]);
    const { engine: e, agents } = engine(prds);
    const runA = e.run(a, { maxIterations: 1 });
    const runB = e.run(b, { maxIterations: 1 });
    await until('both agents to start', () => agents.length === 2);

    const live = e.all();
    assert.deepEqual(
      live.map((r) => [r.folder.name, r.phase, r.storyId, r.iteration]),
      [
        ['a', 'running', 'A-1', 1],
        ['b', 'running', 'B-1', 1],
      ],
    );
    assert.notEqual(live[0].id, live[1].id);
    // the user rule: one run per folder, with its message
    await assert.rejects(e.run(a, { maxIterations: 1 }), (err: Error) => err instanceof RunBusyError && err.message === 'An agent is already running (A-1). Stop it first, or wait for it to finish.');

    agents.forEach((agent) => agent.end(0));
    const [outA, outB] = await Promise.all([runA, runB]);
    assert.equal(outA.stop.reason, 'max-iterations');
    assert.equal(outB.stop.reason, 'max-iterations');
    assert.deepEqual(e.all(), []);
    const linesA = parseRuns(readFileSync(path.join(a.root, '.ralph', 'runs.jsonl'), 'utf8')).runs;
    const linesB = parseRuns(readFileSync(path.join(b.root, '.ralph', 'runs.jsonl'), 'utf8')).runs;
    assert.deepEqual(
      [linesA.map((l) => [l.storyId, l.loopId]), linesB.map((l) => [l.storyId, l.loopId])],
      [[['A-1', live[0].id]], [['B-1', live[1].id]]],
    );
  });

  it('a stop names its run: "Stop now" in one folder ends that agent only', async () => {
    const a = folder('a');
    const b = folder('b');
    const prds = new Map([
      [a.root, analyzePrd(makePrd([{ id: 'A-1' }]))],
      [b.root, analyzePrd(makePrd([{ id: 'B-1' }]))],
    ]);
    const { engine: e, agents } = engine(prds);
    const runA = e.run(a, { maxIterations: 3 });
    const runB = e.run(b, { maxIterations: 1 });
    await until('both agents to start', () => agents.length === 2);
    assert.equal(await e.stopNow((r) => r.folder === a), true);
    const outA = await runA;
    assert.equal(outA.stop.reason, 'stop-requested');
    assert.deepEqual(
      outA.iterations.map((i) => i.outcome),
      ['stopped'],
    );
    assert.deepEqual(
      e.all().map((r) => [r.folder.name, r.phase, r.stopRequested]),
      [['b', 'running', undefined]],
    );
    agents[1].end(0);
    assert.equal((await runB).iterations.length, 1);
  });

  describe('an agent that hits its limit', () => {
    const NOW = Date.parse('2026-11-26T10:00:00Z');
    const limitLine = (resetAt: number): string => `Claude AI usage limit reached|${Math.floor(resetAt / 1000)}\n`;

    /** A clock that does not sleep unless the test holds it: each sleep is recorded, and settles at once or when released. */
    function fakeClock(hold = false): { clock: Clock; sleeps: number[]; release(): void } {
      const sleeps: number[] = [];
      let releases: (() => void)[] = [];
      return {
        sleeps,
        clock: {
          now: () => NOW,
          sleep: (ms, signal) =>
            new Promise<void>((resolve) => {
              sleeps.push(ms);
              if (!hold) {
                resolve();
                return;
              }
              releases.push(resolve);
              signal?.addEventListener('abort', () => resolve(), { once: true });
            }),
        },
        release: () => {
          releases.forEach((r) => r());
          releases = [];
        },
      };
    }

    it('records the run rate-limited with its reset time, waits until the reset plus a margin, runs the story again and completes; the breaker is not touched', async () => {
      const f = folder('limit');
      const prds = new Map([[f.root, analyzePrd(makePrd([{ id: 'US-1' }]))]]);
      const { clock, sleeps } = fakeClock();
      const changes: (number | undefined)[] = [];
      const { engine: e, agents } = engine(prds, { clock, changed: (run) => changes.push(run.limit?.until) });
      const done = e.run(f, { maxIterations: 1, failureLimit: 1 });
      await until('the first agent', () => agents.length === 1);
      agents[0].print(`working on US-1\n${limitLine(NOW + 120_000)}`);
      agents[0].end(1);
      await until('the second agent', () => agents.length === 2);
      prds.set(f.root, analyzePrd(makePrd([{ id: 'US-1', passes: true }])));
      agents[1].end(0);
      const out = await done;
      assert.equal(out.stop.reason, 'all-pass', out.stop.message);
      // 2 minutes ahead: the reset, plus a tenth of the wait (12 s)
      assert.deepEqual(sleeps, [132_000]);
      assert.ok(changes.includes(NOW + 132_000), 'the run showed when it resumes');
      const lines = parseRuns(readFileSync(path.join(f.root, '.ralph', 'runs.jsonl'), 'utf8')).runs;
      assert.deepEqual(lines.map((l) => [l.storyId, l.outcome, l.exitCode, l.resetAt]), [
        ['US-1', 'rate-limited', 1, new Date(NOW + 120_000).toISOString()],
        ['US-1', 'passed', 0, undefined],
      ]);
    });

    it('with ralph.agent.fallback, the next iteration runs the first preset that is not limited, without waiting; runs.jsonl names the agent that ran', async () => {
      const f = folder('fallback');
      const prds = new Map([[f.root, analyzePrd(makePrd([{ id: 'US-1' }]))]]);
      const { clock, sleeps } = fakeClock();
      const asked: (string | undefined)[] = [];
      const { engine: e, agents } = engine(prds, {
        clock,
        prepare: async (g, step, _before, _dirty, presetId) => {
          asked.push(presetId);
          return { promptFile: `.ralph/prompts/${step.storyId}-${asked.length}.md`, agent: presetId ?? 'claude', launch: { name: step.storyId, cwd: g.root, commandLine: 'agent', env: {} }, observe: async () => ({}) };
        },
      });
      const done = e.run(f, { maxIterations: 1, fallback: ['claude', 'codex'] });
      await until('the first agent', () => agents.length === 1);
      agents[0].print(limitLine(NOW + 3_600_000));
      agents[0].end(1);
      await until('the second agent', () => agents.length === 2);
      prds.set(f.root, analyzePrd(makePrd([{ id: 'US-1', passes: true }])));
      agents[1].end(0);
      assert.equal((await done).stop.reason, 'all-pass');
      assert.deepEqual(asked, [undefined, 'codex'], 'the configured agent first, then the first fallback that is not limited (claude itself is skipped)');
      assert.deepEqual(sleeps, [], 'no wait while another agent may run');
      const lines = parseRuns(readFileSync(path.join(f.root, '.ralph', 'runs.jsonl'), 'utf8')).runs;
      assert.deepEqual(lines.map((l) => [l.agent, l.outcome]), [['claude', 'rate-limited'], ['codex', 'passed']]);
    });

    it('after maxLimitedInARow limited runs in a row the loop stops with its own reason, without waiting once more', async () => {
      const f = folder('breaker');
      const prds = new Map([[f.root, analyzePrd(makePrd([{ id: 'US-1' }]))]]);
      const { clock, sleeps } = fakeClock();
      const { engine: e, agents } = engine(prds, { clock });
      const done = e.run(f, { maxIterations: 10, maxLimitedInARow: 2 });
      for (const n of [1, 2]) {
        await until(`agent ${n}`, () => agents.length === n);
        agents[n - 1].print(limitLine(NOW + 120_000));
        agents[n - 1].end(1);
      }
      const out = await done;
      assert.equal(out.stop.reason, 'rate-limit', out.stop.message);
      assert.match(out.stop.message, /in 2 runs in a row \(last: US-1; it said the limit resets at 2026-11-26 10:02 UTC\)/);
      assert.equal(agents.length, 2);
      assert.deepEqual(sleeps, [132_000], 'one wait, after the first limited run; none after the one that tripped the breaker');
    });

    it('Stop during a limit wait says the loop was stopped while it waited for the limit, not that an agent was ended', async () => {
      const f = folder('stop-in-wait');
      const prds = new Map([[f.root, analyzePrd(makePrd([{ id: 'US-1' }]))]]);
      const held = fakeClock(true);
      const { engine: e, agents } = engine(prds, { clock: held.clock });
      const done = e.run(f, { maxIterations: 5 });
      await until('the agent', () => agents.length === 1);
      agents[0].print(limitLine(NOW + 3_600_000));
      agents[0].end(1);
      await until('the wait', () => e.all()[0]?.limit !== undefined);
      assert.equal(await e.stopNow(), true);
      const out = await done;
      assert.equal(out.stop.reason, 'stop-requested');
      assert.equal(out.stop.message, "Stopped: you stopped the loop while it waited for custom's limit to reset (after 1 iteration, last story US-1); no agent was running (0/1 stories pass).");
    });

    it('with no reset time printed, backs off 1 then 2 minutes; Stop during the wait ends the loop without running the agent again', async () => {
      const f = folder('backoff');
      const prds = new Map([[f.root, analyzePrd(makePrd([{ id: 'US-1' }]))]]);
      const held = fakeClock(true);
      const { engine: e, agents } = engine(prds, { clock: held.clock });
      const done = e.run(f, { maxIterations: 5 });
      for (const n of [1, 2]) {
        await until(`agent ${n}`, () => agents.length === n);
        agents[n - 1].print('API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n');
        agents[n - 1].end(1);
        await until(`wait ${n}`, () => held.sleeps.length === n && e.all()[0]?.limit !== undefined);
        assert.equal(e.all()[0].limit?.source, 'backoff');
        if (n === 1) {
          assert.equal(e.resumeNow(), true, 'Resume Now ends the first wait');
        }
      }
      assert.deepEqual(held.sleeps, [60_000, 120_000]);
      assert.equal(await e.stopNow(), true);
      const out = await done;
      assert.equal(out.stop.reason, 'stop-requested');
      assert.equal(agents.length, 2, 'no agent ran after Stop');
      assert.equal(e.resumeNow(), false);
    });
  });
});
