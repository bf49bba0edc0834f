import assert from 'node:assert/strict';
import { KeyedDebouncer } from '../../src/util/debounce';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('KeyedDebouncer (reloads of prd.json, progress.txt, runs.jsonl)', () => {
  it('trailing: a burst of triggers runs once, after the delay', async () => {
    const runs: string[] = [];
    const d = new KeyedDebouncer<string>(40, async (k) => void runs.push(k));
    d.trigger('a');
    d.trigger('a');
    d.trigger('a');
    assert.deepEqual(runs, []);
    await d.idle();
    assert.deepEqual(runs, ['a']);
  });

  it('leading: a change on disk runs at once (no delay before the picture updates), and a burst after it runs once more at its end', async () => {
    const runs: number[] = [];
    const t0 = Date.now();
    const d = new KeyedDebouncer<string>(60, async () => void runs.push(Date.now() - t0));
    d.trigger('a', { leading: true });
    await sleep(0);
    assert.equal(runs.length, 1, 'the first trigger runs without waiting for the delay');
    assert.ok(runs[0] < 30, `ran after ${runs[0]} ms`);
    d.trigger('a', { leading: true });
    d.trigger('a');
    d.trigger('a', { leading: true });
    await sleep(10);
    assert.equal(runs.length, 1, 'triggers during the quiet period wait');
    await d.idle();
    assert.equal(runs.length, 2, 'the burst ran once more at its end (the last state is read)');
    d.dispose();
  });

  it('leading: a lone trigger runs once, not twice', async () => {
    let n = 0;
    const d = new KeyedDebouncer<string>(20, async () => void n++);
    d.trigger('a', { leading: true });
    await d.idle();
    await sleep(40);
    assert.equal(n, 1);
  });
});
