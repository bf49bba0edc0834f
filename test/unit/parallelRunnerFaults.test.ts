/**
 * The parallel runner (src/node/parallel/runner.ts) when a part under it throws: the executor
 * cannot start an agent (a terminal that could not be made), a kept worktree vanished. The run
 * still ends, each story needing the user with the reason, and no promise is left rejected unheard.
 */
import assert from 'node:assert/strict';
import type { AgentExecutor } from '../../src/core/loop/executor';
import type { ParallelStop } from '../../src/core/loop/parallelLoop';
import { ParallelRunner } from '../../src/node/parallel/runner';
import { cleanRepos, makeRepo } from './parallelRepo';

/** Resolves with the run's stop, or undefined when it has not ended by the deadline. */
function settled(p: Promise<ParallelStop>, ms: number): Promise<ParallelStop | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))]).finally(() => clearTimeout(timer));
}

describe('parallel runner: faults under it', function () {
  this.timeout(120_000);
  after(cleanRepos);
  const unheard: unknown[] = [];
  const listen = (e: unknown): void => void unheard.push(e);
  beforeEach(() => {
    unheard.length = 0;
    process.on('unhandledRejection', listen);
  });
  afterEach(() => process.off('unhandledRejection', listen));

  it('an executor that throws as it starts an agent: the run ends, the stories need you with the reason, no unhandled rejection', async () => {
    const root = makeRepo();
    const executor: AgentExecutor = {
      start: () => {
        throw new Error('the terminal could not be created');
      },
    };
    const runner = new ParallelRunner(
      root,
      { config: { maxAgents: 2, maxIterations: 8, failureLimit: 2, noProgressLimit: 2 }, mergeMode: 'merge', runTimeoutMs: 0, files: { prd: 'prd.json', progress: 'progress.txt', pin: 'specs/INDEX.md' }, holder: 'a test' },
      { executor, planAgent: () => ({ ok: true, commandLine: 'agent', env: {}, warnings: [], agent: 'pretend' }) },
    );
    const stop = await settled(runner.run(), 60_000);
    assert.ok(stop, 'run() settled');
    assert.ok(stop.needsYou.length > 0, 'stories need the user');
    assert.match(stop.needsYou.map((n) => n.message).join('\n'), /the terminal could not be created/);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(unheard, []);
  });
});
