import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { eventually, host, openDemo, openRalphContainer, rowLabels, runCommand, screenshotOnFailure, setExpanded, shot, storiesPane, storyRow, widenSideBar, type Workbench } from './workbench';

describe('Ralph Workbench in the VS Code UI (demo workspace)', function () {
  let wb: Workbench;
  let page: Page;
  let folder: string;

  before(async function () {
    this.timeout(120_000);
    ({ wb, folder } = await openDemo());
    page = wb.page;
  });

  after(async () => {
    await wb?.close();
    await (await host()).cleanupAll();
  });

  afterEach(async function () {
    await screenshotOnFailure(page, this.currentTest);
  });

  it('shows the Stories tree when the Ralph activity-bar item is clicked', async () => {
    await openRalphContainer(page);
    await widenSideBar(page);
    // Give the Stories view the whole side bar, so every row is drawn.
    await setExpanded(page, 'Runs', false);
    await setExpanded(page, 'Memory', false);
    const labels = await rowLabels(page);
    assert.ok(labels[0]?.startsWith('US-006: Sort tasks by priority'), `first row: ${labels[0]}`);
    assert.match(labels[0], /\bnext\b/);
    assert.equal(labels.length, 12, `rows: ${JSON.stringify(labels)}`);
    await shot(page, '01-stories-tree');
  });

  it('expanding a blocked story shows "blocked by" rows; clicking one reveals the blocking story', async () => {
    const us007 = storyRow(page, 'US-007:');
    await us007.waitFor({ state: 'visible' });
    const label = (await us007.getAttribute('aria-label')) ?? '';
    assert.match(label, /blocked/, `US-007 row: ${label}`);
    if ((await us007.getAttribute('aria-expanded')) !== 'true') {
      await us007.locator('.monaco-tl-twistie').click();
    }
    await eventually('US-007 to expand', async () => (await us007.getAttribute('aria-expanded')) === 'true');
    // US-007 is blocked by US-004 (done) and US-006 (pending): take the row for US-006.
    const children = storiesPane(page).locator('.monaco-list-row[aria-level="2"]');
    const blockedBy = children.filter({ has: page.locator('.label-name', { hasText: /^blocked by / }) });
    await blockedBy.first().waitFor({ state: 'visible', timeout: 10_000 });
    const texts = await blockedBy.locator('.label-name').allInnerTexts();
    const target = blockedBy.filter({ has: page.locator('.label-name', { hasText: /^blocked by US-006/ }) });
    assert.equal(await target.count(), 1, `"blocked by" rows under US-007: ${JSON.stringify(texts)}`);
    await shot(page, '02-us-007-expanded');

    await target.click();
    const selected = storiesPane(page).locator('.monaco-list-row.selected, .monaco-list-row.focused');
    await eventually(
      'the blocking story US-006 to become the selected/focused row',
      async () => ((await selected.first().getAttribute('aria-label')) ?? '').startsWith('US-006:'),
      10_000,
      () => selected.evaluateAll((els) => els.map((e) => `${e.className}: ${e.getAttribute('aria-label')}`)),
    );
    await shot(page, '03-blocked-by-reveals-us-006');
  });

  it('a broken prd.json shows a problems node in the tree and the error in the Problems panel', async () => {
    const prd = path.join(folder, 'prd.json');
    const original = readFileSync(prd, 'utf8');
    const broken = original.replace('"blockedBy": [\n        "US-002"\n      ],\n      "notes": ""\n    },\n    {\n      "id": "US-007"', '"blockedBy": [\n        "US-099"\n      ],\n      "notes": ""\n    },\n    {\n      "id": "US-007"');
    assert.notEqual(broken, original, 'could not find US-006.blockedBy in the demo prd.json');
    writeFileSync(prd, broken);
    try {
      await eventually('a "N problem(s) in prd.json" row first in the Stories tree', async () => /^\d+ problems? in prd\.json/.test((await rowLabels(page))[0] ?? ''), 15_000, () => rowLabels(page));

      await runCommand(page, 'Ralph: Open prd.json');
      await page.locator('.editor-instance .monaco-editor').first().waitFor({ state: 'visible', timeout: 10_000 });
      await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
      const problems = page.locator('.markers-panel');
      await problems.waitFor({ state: 'visible', timeout: 10_000 });
      await eventually('the US-099 problem in the Problems panel', async () => /US-099/.test(await problems.innerText()), 15_000, () => problems.innerText());
      // Show the offending line in the editor next to the panel.
      await page.locator('.markers-panel .monaco-list-row', { hasText: 'US-099' }).first().dblclick();
      await page.waitForTimeout(500);
      await shot(page, '04-broken-prd-problems');
    } finally {
      writeFileSync(prd, original);
    }
    await eventually('the demo tree to come back after restoring prd.json', async () => ((await rowLabels(page))[0] ?? '').startsWith('US-006:'), 15_000, () => rowLabels(page));
  });
});
