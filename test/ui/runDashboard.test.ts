/**
 * Issue 21: the Run Dashboard, opened from the command palette on a workspace whose runs.jsonl has
 * runs with costs (two features: ralph/tasks archived, ralph/billing current). What a user sees:
 * the cost chart's accessible summary naming the total, the table view after the toggle, the
 * figures of one feature after picking it, and a run appended to runs.jsonl appearing.
 */
import * as assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { serializeRun } from '../../src/core/runs/runs';
import { runAt, writeDemoWorkspace } from '../support/runsData';
import { eventually, host, openRalphContainer, runCommand, shot, useWorkbench } from './workbench';

async function dashboardFrame(page: Page): Promise<Frame> {
  let found: Frame | undefined;
  await eventually('the Run Dashboard webview to load', async () => {
    for (const f of page.frames()) {
      if ((await f.locator('body[data-mode="dashboard"] .dash').count().catch(() => 0)) > 0) {
        found = f;
        return true;
      }
    }
    return false;
  }, 30_000);
  return found as Frame;
}

describe('Run Dashboard (issue 21)', function () {
  const ui = useWorkbench(async () => {
    const h = await host();
    const folder = h.copyFixture('examples/demo');
    writeDemoWorkspace(folder);
    const wb = await h.openWorkbench({ folder, viewport: { width: 1400, height: 860 }, settings: { ...h.demoSettings } });
    return { wb, folder };
  });

  it('shows the cost per story with its total, as a table too, filters by feature and follows runs.jsonl', async () => {
    await openRalphContainer(ui.page);
    await runCommand(ui.page, 'Ralph: Open Run Dashboard');
    const f = await dashboardFrame(ui.page);
    const summary = f.locator('#summary-cost-per-story');
    const text = (): Promise<string> => summary.textContent().then((t) => t ?? '');
    await eventually('the cost summary', async () => (await text()) === 'Total cost $4.50 over 3 stories; most: US-001 at $2.50; 2 runs with unknown cost.', 30_000, text);
    // The drawing is an image named by that summary.
    assert.equal(await f.locator('#chart-cost-per-story svg[role="img"]').getAttribute('aria-labelledby'), 'summary-cost-per-story');
    assert.equal(await f.locator('#chart-cost-per-story rect.bar').count(), 3);
    assert.equal(await f.locator('#summary-limit-waits').textContent(), '1 rate-limited run, 30m 00s waiting on limits.');
    await f.locator('.chart').first().waitFor({ state: 'visible' });
    const file = await shot(ui.page, 'run-dashboard');

    // The table view of the cost chart.
    const table = f.locator('#table-cost-per-story');
    const rows = (): Promise<string[][]> => table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')));
    assert.equal(await table.isVisible(), false);
    await f.locator('#chart-cost-per-story .table-toggle').click();
    await eventually('the cost table', () => table.isVisible(), 10_000);
    assert.deepEqual(await rows(), [
      ['US-001', 'Invoice schema', '$2.50', '1', '3'],
      ['US-002', 'Task API', '$2.00', '0', '2'],
      ['US-003', 'Invoice PDF', '$0.00', '1', '1'],
    ]);
    assert.equal(await f.locator('#chart-cost-per-story .table-toggle').getAttribute('aria-pressed'), 'true');

    // One feature: the archived ralph/tasks.
    await f.locator('#feature').selectOption('ralph/tasks');
    await eventually('the figures of ralph/tasks', async () => (await text()) === 'Total cost $2.50 over 2 stories; most: US-002 at $2.00.', 15_000, text);
    assert.deepEqual(await rows(), [
      ['US-001', 'Task schema', '$0.5000', '0', '1'],
      ['US-002', 'Task API', '$2.00', '0', '2'],
    ]);

    // An agent records another run of that feature: it appears without a reload.
    appendFileSync(path.join(ui.folder, '.ralph', 'runs.jsonl'), serializeRun(runAt(60, 10, { storyId: 'US-002', storyTitle: 'Task API', loopId: 'loop-a', iteration: 4, cost: 1.5 }, '2026-11-17')));
    await eventually('the appended run', async () => (await text()) === 'Total cost $4.00 over 2 stories; most: US-002 at $3.50.', 30_000, text);
    assert.deepEqual((await rows())[1], ['US-002', 'Task API', '$3.50', '0', '3']);
    await shot(ui.page, 'run-dashboard-table');

    // A long history (300 more stories): bars too thin to point at are one path, and the charts
    // below the fold (drawn just after the first paint) are there too.
    await f.locator('#feature').selectOption('');
    const many = Array.from({ length: 300 }, (_, i) => serializeRun(runAt(100 + i, 1, { storyId: `BIG-${String(i + 1).padStart(3, '0')}`, storyTitle: 'Big', loopId: 'loop-c', cost: 0.01 }))).join('');
    appendFileSync(path.join(ui.folder, '.ralph', 'runs.jsonl'), many);
    const bars = f.locator('#chart-attempts-per-story svg[role="img"] path.bars');
    const subpaths = async (): Promise<number> => ((await bars.getAttribute('d', { timeout: 1000 }).catch(() => null)) ?? '').split('M').length - 1;
    await eventually('303 thin bars in one path', async () => (await subpaths()) === 303, 30_000, subpaths);
    assert.equal(await f.locator('#chart-attempts-per-story rect.bar').count(), 0);
    assert.equal(await f.locator('section.chart svg.plot').count(), await f.locator('section.chart').count(), 'every chart drawn');
    console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);
  });
});
