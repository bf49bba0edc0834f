/**
 * The parallel runner's limit waits (node/parallel/limitWaits.ts) with ralph.agent.fallback: a
 * limit hit by a fallback while the configured agent is free again makes nobody wait (found by a
 * hostile review).
 */
import assert from 'node:assert/strict';
import type { LimitVerdict } from '../../src/core/insights/limits';
import type { Clock } from '../../src/core/loop/clock';
import { LimitWaits } from '../../src/node/parallel/limitWaits';
import type { RunnerEvent } from '../../src/node/parallel/runnerTypes';

describe('parallel: limit waits with ralph.agent.fallback', () => {
  it('a fallback that hits its limit after the configured agent\'s limit passed does not make the loop wait for the fallback\'s reset', async () => {
    let now = Date.parse('2026-11-26T12:00:00Z');
    const slept: number[] = [];
    const clock: Clock = { now: () => now, sleep: async (ms) => void slept.push(ms) };
    const waits = new LimitWaits(clock, ['amp'], () => now);
    const limit = (resetIso: string): LimitVerdict => ({ limited: true, kind: 'usage-limit', resetAt: new Date(resetIso), message: 'limit' });
    const events: RunnerEvent[] = [];
    // claude (configured) is limited until 13:00
    waits.ended('US-1', { agent: 'claude', limit: limit('2026-11-26T13:00:00Z'), ended: new Date(now) }, undefined);
    await waits.waitOut('US-1', 1, false, (e) => events.push(e));
    assert.equal(waits.presetFor(), 'amp', 'amp runs while claude is limited');
    // amp runs the story for two hours, then hits its own limit, resetting at 20:00
    now = Date.parse('2026-11-26T14:00:00Z');
    waits.ended('US-1', { agent: 'amp', limit: limit('2026-11-26T20:00:00Z'), ended: new Date(now) }, 'amp');
    events.length = 0;
    slept.length = 0;
    await waits.waitOut('US-1', 2, false, (e) => events.push(e));
    assert.equal(waits.presetFor(), undefined, 'claude (free since 13:00) runs next');
    assert.deepEqual(
      events.filter((e) => e.kind === 'waiting').map((e) => (e as { until: number }).until - now),
      [],
      'no wait: claude may run now, yet the loop waits for amp\'s reset',
    );
  });
});
