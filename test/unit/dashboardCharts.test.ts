/** The Run Dashboard's messages (issue 21): the charts from the figures, within the protocol the page validates. */
import assert from 'node:assert/strict';
import { dashboardCharts, dashboardHeadline } from '../../src/core/insights/charts';
import { featureResolver } from '../../src/core/insights/features';
import { computeStats } from '../../src/core/insights/stats';
import { DASHBOARD_LIMITS, parseDashboardHostMessage, parseDashboardPageMessage } from '../../src/core/webview/dashboardProtocol';
import { demoRuns, runRecord } from '../support/runsData';

const resolver = featureResolver([{ branchName: 'ralph/billing', storyIds: ['US-001', 'US-003'] }]);
const message = (runs = demoRuns()) => {
  const stats = computeStats(runs, resolver);
  return { type: 'stats', folder: 'demo', filter: {}, features: stats.features, headline: dashboardHeadline(stats), skipped: 0, charts: dashboardCharts(stats) };
};

describe('Run Dashboard charts (issue 21)', () => {
  it('gives every chart a summary, points and a table, and the page accepts the message', () => {
    const m = message();
    const parsed = parseDashboardHostMessage(m);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.deepEqual(
      m.charts.map((c) => [c.id, c.points.length, c.rows.length]),
      [
        ['cost-per-story', 3, 3],
        ['tokens-per-story', 3, 3],
        ['cumulative-cost', 6, 2],
        ['duration', 6, 6],
        ['success-per-loop', 2, 2],
        ['attempts-per-story', 3, 3],
        ['limit-waits', 1, 1],
      ],
    );
    assert.equal(m.charts[0].summary, 'Total cost $4.50 over 3 stories; most: US-001 at $2.50; 2 runs with unknown cost.');
    assert.deepEqual(m.charts[0].rows[0], ['US-001', 'Invoice schema', '$2.50', '1', '3']);
    assert.equal(m.headline, '6 runs · 60% passed (1 rate-limited run not counted) · $4.50 (+2 unknown) · 14.1k tokens · 1h 10m of agent time');
  });

  it('clamps a hostile story title so that the message is never refused', () => {
    const m = message([runRecord({ storyTitle: `<img src=x onerror=alert(1)>${'x'.repeat(10_000)}`, cost: 1 })]);
    const parsed = parseDashboardHostMessage(m);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    const title = m.charts[0].rows[0][1];
    assert.equal(title.length, DASHBOARD_LIMITS.text);
    assert.ok(title.startsWith('<img src=x'), 'the title stays text, as the page shows it');
  });

  it('the host refuses a page message that is not a filter it knows', () => {
    assert.ok(parseDashboardPageMessage({ type: 'filter', filter: { feature: 'ralph/tasks', since: '2026-11-01' } }).ok);
    const bad = parseDashboardPageMessage({ type: 'filter', filter: { since: '1 Nov' } });
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.error, /^malformed filter message: filter\.since/);
  });
});
