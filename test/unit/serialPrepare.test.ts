/**
 * The serial loop's preparer without VS Code (src/node/preparer.ts), as the CLI's `run --parallel 1`
 * and the extension use it: what a full disk while the prompt is written leaves.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunStep } from '../../src/core/loop/loop';
import { analyzePrd } from '../../src/core/prd/index';
import { defaultSettings } from '../../src/core/settingsFile';
import { prepareIteration, RunError } from '../../src/node/preparer';
import { makePrd } from './helpers';
import { PROGRESS } from './parallelRepo';

describe('serial preparer (node)', () => {
  const made: string[] = [];
  after(() => made.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('a full disk while the prompt is written: a RunError that says so, no half prompt left, the memory files untouched', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'ralph-prep-'));
    made.push(root);
    const prd = makePrd([{ id: 'US-001' }]);
    writeFileSync(path.join(root, 'prd.json'), prd);
    writeFileSync(path.join(root, 'progress.txt'), PROGRESS);
    mkdirSync(path.join(root, '.ralph', 'prompts'), { recursive: true });
    const step: RunStep = { kind: 'run', storyId: 'US-001', storyTitle: 'Story US-001', iteration: 1, maxIterations: 1 };
    const ctx = {
      root,
      settings: defaultSettings().values,
      log: { info: () => undefined, warn: () => undefined },
      planAgent: () => ({ ok: true as const, commandLine: 'agent', env: {}, warnings: [], agent: 'pretend' }),
      writeFile: () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })),
    };
    await assert.rejects(prepareIteration(ctx, step, analyzePrd(prd), false), (e: unknown) => {
      assert.ok(e instanceof RunError, String(e));
      assert.equal(e.message, 'US-001: the disk is full: its prompt could not be written (nothing was started; free some space and run again).');
      return true;
    });
    assert.deepEqual(readdirSync(path.join(root, '.ralph', 'prompts')), []);
    assert.equal(readFileSync(path.join(root, 'prd.json'), 'utf8'), prd);
    assert.equal(readFileSync(path.join(root, 'progress.txt'), 'utf8'), PROGRESS);
  });
});
