/**
 * What `npm start` shows: the production build installed in the server's extensions folder, as a
 * user's VS Code loads it, without the smoke-test driver, which hides every notification
 * (issue 18 item 1). The product's toasts (an Apply prompt, an error, "nothing to compact")
 * must reach the user.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type * as ProductModule from '../../scripts/product.mjs' with { 'resolution-mode': 'import' };
import { host, openRalphContainer, rowLabels, runCommand, shot, useWorkbench } from './workbench';

describe('npm start: the product as a user gets it', function () {
  const ui = useWorkbench(async () => {
    const h = await host();
    const product = (await import('../../scripts/product.mjs')) as typeof ProductModule;
    const extension = await product.stageProductExtension({ dir: path.join(h.makeTempDir('ralph-product-'), 'extensions') });
    const folder = h.copyFixture('examples/demo');
    const wb = await h.openWorkbench({ folder, viewport: { width: 1400, height: 860 }, settings: { ...h.demoSettings }, installed: [extension] });
    return { wb, folder };
  });

  it('loads the installed production build and shows its notifications', async () => {
    await openRalphContainer(ui.page);
    const labels = await rowLabels(ui.page);
    assert.ok(labels.some((l) => l.startsWith('US-006')), `the Stories view shows the demo: ${JSON.stringify(labels)}`);
    const before = readFileSync(path.join(ui.folder, 'progress.txt'), 'utf8');
    // The demo's progress.txt is under the threshold: the command says so in a notification.
    await runCommand(ui.page, 'Ralph: Compact progress.txt…');
    const toast = ui.page.locator('.notifications-toasts .notification-toast', { hasText: 'nothing to compact' });
    await toast.first().waitFor({ state: 'visible', timeout: 30_000 });
    await shot(ui.page, 'npm-start-notification');
    assert.equal(readFileSync(path.join(ui.folder, 'progress.txt'), 'utf8'), before);
  });
});
