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
  it('isPending: true only while a trigger waits for the end of the quiet period', async () => {
    const d = new KeyedDebouncer<string>(30, async () => undefined);
    assert.equal(d.isPending('a'), false);
    d.trigger('a', { leading: true });
    assert.equal(d.isPending('a'), false, 'the leading run started at once: nothing waits');
    d.trigger('a', { leading: true });
    assert.equal(d.isPending('a'), true, 'a second report during the quiet period waits');
    assert.equal(d.isPending('b'), false);
    await d.idle();
    assert.equal(d.isPending('a'), false);
    d.dispose();
  });
  it('settleMs: a leading run waits that long, so the events of one write give one read of its bytes', async () => {
    const runs: number[] = [];
    const t0 = Date.now();
    const d = new KeyedDebouncer<string>(80, async () => void runs.push(Date.now() - t0), 25);
    d.trigger('a', { leading: true });
    d.trigger('a', { leading: true });
    await sleep(5);
    assert.equal(runs.length, 0, 'the leading run waits for the settle time');
    assert.equal(d.isPending('a'), true, 'the second event is read again after the quiet period');
    await sleep(40);
    assert.equal(runs.length, 1, 'the leading run happened after the settle time, not after the quiet period');
    assert.ok(runs[0] >= 20, `ran after ${runs[0]} ms`);
    await d.idle();
    assert.equal(runs.length, 2);
    d.dispose();
  });
  it('runs of one key never overlap: a trigger during a slow run runs after it, so the last run reads the last state', async () => {
    const events: string[] = [];
    let active = 0;
    let release!: () => void;
    const d = new KeyedDebouncer<string>(10, async () => {
      active++;
      events.push(`start ${active}`);
      if (events.length === 1) {
        await new Promise<void>((r) => (release = r));
      }
      active--;
      events.push('end');
    });
    d.trigger('a', { leading: true });
    await sleep(30); // past the quiet period: the next trigger is leading again, while the first run is still reading
    d.trigger('a', { leading: true });
    await sleep(20);
    assert.deepEqual(events, ['start 1'], 'the second run waits for the first');
    assert.equal(d.isPending('a'), true);
    release();
    await d.idle();
    assert.deepEqual(events, ['start 1', 'end', 'start 1', 'end']);
    d.dispose();
  });
});

describe('KeyedDebouncer.runNow (PrdWorkspace.readNow: a read asked for now)', () => {
  it('never overlaps the run in flight: it runs after it, and resolves when a run that started after the call has ended', async () => {
    const events: string[] = [];
    let inflight = 0;
    let overlapped = false;
    let release: (() => void) | undefined;
    const d = new KeyedDebouncer<string>(30, async (k) => {
      overlapped ||= inflight > 0;
      inflight++;
      events.push(`start ${k}`);
      if (!release) {
        await new Promise<void>((r) => (release = r)); // the first run is slow (a busy disk)
      }
      events.push(`end ${k}`);
      inflight--;
    });
    d.trigger('a', { leading: true });
    assert.deepEqual(events, ['start a'], 'the watcher\'s read is in flight');
    let done = false;
    const now = d.runNow('a').then(() => (done = true));
    await sleep(10);
    assert.deepEqual(events, ['start a'], 'runNow waits for the read in flight');
    release!();
    await now;
    assert.equal(done, true);
    assert.deepEqual(events, ['start a', 'end a', 'start a', 'end a'], 'one more run, after the first');
    assert.equal(overlapped, false);
    await d.idle();
    d.dispose();
  });

  it('on a quiet key: runs at once, without waiting for any delay, and once', async () => {
    let n = 0;
    const d = new KeyedDebouncer<string>(10_000, async () => void n++);
    const t0 = Date.now();
    await d.runNow('a');
    assert.equal(n, 1);
    assert.ok(Date.now() - t0 < 1_000);
    await d.idle();
    assert.equal(n, 1);
    d.dispose();
  });

  it('dispose: a waiting runNow resolves (nothing hangs)', async () => {
    let release: (() => void) | undefined;
    const d = new KeyedDebouncer<string>(10, () => new Promise<void>((r) => (release = r)));
    d.trigger('a', { leading: true });
    const now = d.runNow('a');
    d.dispose();
    release!();
    await now;
  });
});
