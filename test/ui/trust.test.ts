/**
 * Restricted Mode: in an untrusted workspace the views still show everything, read-only, and
 * nothing that runs an agent or changes a file can be used.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { eventually, openDemo, openRalphContainer, pane, rowLabels, setExpanded, shot, storiesPane, useWorkbench, widenSideBar } from './workbench';

describe('Ralph Workbench in Restricted Mode (untrusted demo workspace)', function () {
  const ui = useWorkbench(() =>
    openDemo({
      'security.workspace.trust.enabled': true,
      'security.workspace.trust.startupPrompt': 'never',
      'security.workspace.trust.untrustedFiles': 'open',
    }),
  );

  it('shows the stories read-only: no run or edit action, a trust message in the Runs view, prd.json untouched', async () => {
    const before = readFileSync(path.join(ui.folder, 'prd.json'), 'utf8');
    await openRalphContainer(ui.page);
    await widenSideBar(ui.page);
    await setExpanded(ui.page, 'Memory', false);
    const labels = await rowLabels(ui.page);
    assert.ok(labels[0]?.startsWith('US-006 · next · Sort tasks by priority'), `the stories are shown: ${JSON.stringify(labels)}`);

    // The title action that runs an agent is not usable.
    await storiesPane(ui.page).hover();
    const run = storiesPane(ui.page).locator('.actions .action-label[aria-label^="Run Next Ready Story"]');
    if ((await run.count()) > 0) {
      assert.equal(await run.first().getAttribute('aria-disabled'), 'true', '"Run Next Ready Story" is disabled');
    }
    // Hovering a story offers no "Mark as Passing" or "Run This Story" that can be clicked.
    const row = storiesPane(ui.page).locator('.monaco-list-row').first();
    await row.hover();
    for (const label of ['Mark as Passing', 'Run This Story']) {
      const action = row.locator(`.action-label[aria-label^="${label}"]`);
      if ((await action.count()) > 0) {
        assert.equal(await action.first().getAttribute('aria-disabled'), 'true', `"${label}" is disabled`);
      }
    }
    await setExpanded(ui.page, 'Runs', true);
    await eventually('the Runs view to explain why agents do not run', async () => (await pane(ui.page, 'Runs').innerText()).includes('Agents run only in a trusted workspace'));
    // No "Run next" item in the status bar either.
    assert.equal(await ui.page.locator('.statusbar-item', { hasText: 'Ralph: US-006' }).count(), 0, 'no run item in the status bar');
    await shot(ui.page, '30-restricted-mode');
    assert.equal(readFileSync(path.join(ui.folder, 'prd.json'), 'utf8'), before, 'prd.json is untouched');
  });
});
