/**
 * Restricted Mode: in an untrusted workspace the views still show everything, read-only, and
 * nothing that runs an agent or changes a file can be used.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { eventually, host, openRalphContainer, pane, rowLabels, screenshotOnFailure, setExpanded, shot, storiesPane, widenSideBar, type Workbench } from './workbench';

describe('Ralph Workbench in Restricted Mode (untrusted demo workspace)', function () {
  let wb: Workbench;
  let page: Page;
  let folder: string;

  before(async function () {
    this.timeout(120_000);
    const h = await host();
    folder = h.copyFixture('examples/demo');
    wb = await h.openWorkbench({
      folder,
      viewport: { width: 1400, height: 860 },
      settings: {
        'security.workspace.trust.enabled': true,
        'security.workspace.trust.startupPrompt': 'never',
        'security.workspace.trust.untrustedFiles': 'open',
      },
    });
    page = wb.page;
  });

  after(async () => {
    await wb?.close();
    await (await host()).cleanupAll();
  });

  afterEach(async function () {
    await screenshotOnFailure(page, this.currentTest);
  });

  it('shows the stories read-only: no run or edit action, a trust message in the Runs view, prd.json untouched', async () => {
    const before = readFileSync(path.join(folder, 'prd.json'), 'utf8');
    await openRalphContainer(page);
    await widenSideBar(page);
    await setExpanded(page, 'Memory', false);
    const labels = await rowLabels(page);
    assert.ok(labels[0]?.startsWith('US-006: Sort tasks by priority'), `the stories are shown: ${JSON.stringify(labels)}`);

    // The title action that runs an agent is not usable.
    await storiesPane(page).hover();
    const run = storiesPane(page).locator('.actions .action-label[aria-label^="Run Next Ready Story"]');
    if ((await run.count()) > 0) {
      assert.equal(await run.first().getAttribute('aria-disabled'), 'true', '"Run Next Ready Story" is disabled');
    }
    // Hovering a story offers no "Mark as Passing" or "Run This Story" that can be clicked.
    const row = storiesPane(page).locator('.monaco-list-row').first();
    await row.hover();
    for (const label of ['Mark as Passing', 'Run This Story']) {
      const action = row.locator(`.action-label[aria-label^="${label}"]`);
      if ((await action.count()) > 0) {
        assert.equal(await action.first().getAttribute('aria-disabled'), 'true', `"${label}" is disabled`);
      }
    }
    await setExpanded(page, 'Runs', true);
    await eventually('the Runs view to explain why agents do not run', async () => (await pane(page, 'Runs').innerText()).includes('Agents run only in a trusted workspace'));
    // No "Run next" item in the status bar either.
    assert.equal(await page.locator('.statusbar-item', { hasText: 'Ralph: US-006' }).count(), 0, 'no run item in the status bar');
    await shot(page, '30-restricted-mode');
    assert.equal(readFileSync(path.join(folder, 'prd.json'), 'utf8'), before, 'prd.json is untouched');
  });
});
