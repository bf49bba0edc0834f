import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { eventually, openRalphContainer, rowLabels, runCommand, setExpanded, shot, showRalph, storiesPane, storyRow, useWorkbench, widenSideBar } from './workbench';

describe('Ralph Workbench in the VS Code UI (demo workspace)', function () {
  const ui = useWorkbench();

  it('shows the Stories tree when the Ralph activity-bar item is clicked', async () => {
    await openRalphContainer(ui.page);
    await widenSideBar(ui.page);
    // Give the Stories view the whole side bar, so every row is drawn.
    await setExpanded(ui.page, 'Runs', false);
    await setExpanded(ui.page, 'Memory', false);
    const labels = await rowLabels(ui.page);
    assert.ok(labels[0]?.startsWith('US-006 · next · Sort tasks by priority'), `first row: ${labels[0]}`);
    assert.match(labels[0], /\bnext\b/);
    assert.equal(labels.length, 12, `rows: ${JSON.stringify(labels)}`);
    await shot(ui.page, '01-stories-tree');
  });

  it('expanding a blocked story shows "blocked by" rows; clicking one reveals the blocking story', async () => {
    await showRalph(ui.page);
    const us007 = storyRow(ui.page, 'US-007:');
    await us007.waitFor({ state: 'visible' });
    const label = (await us007.getAttribute('aria-label')) ?? '';
    assert.match(label, /blocked/, `US-007 row: ${label}`);
    if ((await us007.getAttribute('aria-expanded')) !== 'true') {
      await us007.locator('.monaco-tl-twistie').click();
    }
    await eventually('US-007 to expand', async () => (await us007.getAttribute('aria-expanded')) === 'true');
    // US-007 is blocked by US-004 (done) and US-006 (pending): take the row for US-006.
    const children = storiesPane(ui.page).locator('.monaco-list-row[aria-level="2"]');
    const blockedBy = children.filter({ has: ui.page.locator('.label-name', { hasText: /^blocked by / }) });
    await blockedBy.first().waitFor({ state: 'visible', timeout: 10_000 });
    const texts = await blockedBy.locator('.label-name').allInnerTexts();
    const target = blockedBy.filter({ has: ui.page.locator('.label-name', { hasText: /^blocked by US-006/ }) });
    assert.equal(await target.count(), 1, `"blocked by" rows under US-007: ${JSON.stringify(texts)}`);
    await shot(ui.page, '02-us-007-expanded');

    await target.click();
    const selected = storiesPane(ui.page).locator('.monaco-list-row.selected, .monaco-list-row.focused');
    await eventually(
      'the blocking story US-006 to become the selected/focused row',
      async () => ((await selected.first().getAttribute('aria-label')) ?? '').startsWith('US-006:'),
      10_000,
      () => selected.evaluateAll((els) => els.map((e) => `${e.className}: ${e.getAttribute('aria-label')}`)),
    );
    await shot(ui.page, '03-blocked-by-reveals-us-006');
  });

  it('a broken prd.json shows a problems node in the tree and the error in the Problems panel', async () => {
    await showRalph(ui.page);
    const prd = path.join(ui.folder, 'prd.json');
    const original = readFileSync(prd, 'utf8');
    const broken = original.replace('"blockedBy": [\n        "US-002"\n      ],\n      "notes": ""\n    },\n    {\n      "id": "US-007"', '"blockedBy": [\n        "US-099"\n      ],\n      "notes": ""\n    },\n    {\n      "id": "US-007"');
    assert.notEqual(broken, original, 'could not find US-006.blockedBy in the demo prd.json');
    writeFileSync(prd, broken);
    try {
      await eventually('a "N problem(s) in prd.json" row first in the Stories tree', async () => /^\d+ problems? in prd\.json/.test((await rowLabels(ui.page))[0] ?? ''), 15_000, () => rowLabels(ui.page));

      await runCommand(ui.page, 'Ralph: Open prd.json');
      await ui.page.locator('.editor-instance .monaco-editor').first().waitFor({ state: 'visible', timeout: 10_000 });
      await runCommand(ui.page, 'View: Focus Problems (Errors, Warnings, Infos)');
      const problems = ui.page.locator('.markers-panel');
      await problems.waitFor({ state: 'visible', timeout: 10_000 });
      await eventually('the US-099 problem in the Problems panel', async () => /US-099/.test(await problems.innerText()), 15_000, () => problems.innerText());
      // Show the offending line in the editor next to the panel.
      await ui.page.locator('.markers-panel .monaco-list-row', { hasText: 'US-099' }).first().dblclick();
      await ui.page.waitForTimeout(500);
      await shot(ui.page, '04-broken-prd-problems');
    } finally {
      writeFileSync(prd, original);
    }
    await eventually('the demo tree to come back after restoring prd.json', async () => ((await rowLabels(ui.page))[0] ?? '').startsWith('US-006 · '), 15_000, () => rowLabels(ui.page));
  });
});
