/**
 * The walkthrough a new user meets (issue 18 item 13): it opens from the Welcome page's list of
 * walkthroughs, and its steps complete on the real events (a prd.json the extension reads, the
 * Task Graph opened), not on a click in the walkthrough.
 */
import type { Page } from 'playwright-core';
import { eventually, runCommand, shot, useWorkbench } from './workbench';

/** The walkthrough's step whose id ends with `id` (VS Code prefixes the extension and walkthrough ids). */
function step(page: Page, id: string) {
  return page.locator(`.gettingStartedContainer button.getting-started-step[data-step-id$="${id}"]`);
}

async function openWalkthrough(page: Page): Promise<void> {
  await runCommand(page, 'Welcome: Open Walkthrough', { opensQuickPick: true });
  const entry = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Get started with Ralph Workbench' }).first();
  await entry.waitFor({ state: 'visible', timeout: 20_000 });
  await entry.click();
  await page.locator('.gettingStartedContainer', { hasText: 'Get started with Ralph Workbench' }).first().waitFor({ state: 'visible', timeout: 20_000 });
}

describe('the walkthrough', function () {
  const ui = useWorkbench();

  it('opens with its steps, checks "Open or create prd.json" for the demo, and checks the Task Graph step once the graph is opened', async () => {
    await openWalkthrough(ui.page);
    for (const id of ['prd', 'stories', 'graph', 'agent', 'run', 'memory', 'github']) {
      await step(ui.page, id).first().waitFor({ state: 'attached', timeout: 10_000 });
    }
    // The demo's prd.json is read: the first step is done without a click.
    await eventually('the prd.json step to be checked', async () => (await step(ui.page, 'prd').first().getAttribute('aria-checked')) === 'true', 30_000);
    await shot(ui.page, 'walkthrough');
    const graphChecked = async () => (await step(ui.page, 'graph').first().getAttribute('aria-checked')) === 'true';
    if (await graphChecked()) {
      throw new Error('the Task Graph step is checked before the graph was opened');
    }
    await runCommand(ui.page, 'Ralph: Open Task Graph in Editor');
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'Task Graph' }).waitFor({ state: 'visible', timeout: 20_000 });
    // Back to the walkthrough by its tab (the keyboard belongs to the graph's webview now).
    await ui.page.locator('.tabs-container .tab', { hasText: 'Welcome' }).first().click();
    await eventually('the Task Graph step to be checked', graphChecked, 30_000);
    await shot(ui.page, 'walkthrough-graph-done');
  });
});
