/**
 * What `npm start` shows: the production build installed in the server's extensions folder, as a
 * user's VS Code loads it, without the smoke-test driver, which hides every notification
 * (issue 18 item 1). The product's toasts (an Apply prompt, an error, "nothing to compact")
 * must reach the user. And the Issues flow of the demo (issue 18 item 12): two recorded issues
 * served by the local GitHub stand-in that npm start starts (scripts/demo-github.mjs), no token.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type * as DemoGitHubModule from '../../scripts/demo-github.mjs' with { 'resolution-mode': 'import' };
import type * as ProductModule from '../../scripts/product.mjs' with { 'resolution-mode': 'import' };
import { eventually, host, openRalphContainer, pane, rowLabels, rows, runCommand, setExpanded, showRalph, shot, useWorkbench, widenSideBar } from './workbench';

let github: Awaited<ReturnType<typeof DemoGitHubModule.startDemoGitHub>> | undefined;

describe('npm start: the product as a user gets it', function () {
  const ui = useWorkbench(async () => {
    const h = await host();
    const product = (await import('../../scripts/product.mjs')) as typeof ProductModule;
    const extension = await product.stageProductExtension({ dir: path.join(h.makeTempDir('ralph-product-'), 'extensions') });
    const folder = h.copyFixture('examples/demo');
    // As npm start does: the demo's recorded GitHub answers on 127.0.0.1, and the settings that point at them.
    const demoGitHub = (await import('../../scripts/demo-github.mjs')) as typeof DemoGitHubModule;
    github = await demoGitHub.startDemoGitHub();
    const wb = await h.openWorkbench({ folder, viewport: { width: 1400, height: 860 }, settings: { ...h.demoSettings, ...github.settings }, installed: [extension] });
    return { wb, folder };
  });

  after(async () => {
    await github?.gh.stop();
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

  it('shows the demo issues through the GitHub stand-in: linked documents, a plan not linked, Self-heal offered', async () => {
    const { page } = ui;
    await showRalph(page);
    await widenSideBar(page, 640);
    for (const view of ['Stories', 'Runs', 'Memory', 'Task Graph']) {
      await setExpanded(page, view, false);
    }
    await setExpanded(page, 'Issues', true);
    const issues = pane(page, 'Issues');
    const issueRows = (): Promise<string[]> => rows(issues);
    await eventually('the Issues view to show #43 with its group plan on disk', async () => (await issueRows()).some((r) => r.startsWith('Group plan | on disk, not linked')), 30_000, issueRows);
    const r = await issueRows();
    for (const expected of [
      '#42 Task priorities | open · next: implement · ralph · feature',
      'Research | linked · 2026-11-15-GH-0042-task-priorities.md',
      'Plan | linked · 2026-11-16-GH-0042-task-priorities.md',
      'Plan review | linked · APPROVED · 2026-11-16-GH-0042-critique.md',
      'Research | linked · 2026-11-17-GH-0043-priority-notifications.md',
      'Group plan | on disk, not linked · 2026-11-17-group-GH-0043-notifications-and-audit.md',
    ]) {
      assert.ok(r.includes(expected), `${expected} in ${JSON.stringify(r)}`);
    }
    assert.ok(r.some((x) => /^#43 Priority notifications \| open · /.test(x)), JSON.stringify(r));
    // The view says where its issues come from: a stand-in, not GitHub.
    const header = (await issues.locator('.pane-header').first().textContent()) ?? '';
    assert.match(header, /GitHub stand-in at http:\/\/127\.0\.0\.1:\d+/);
    // The plan found on disk offers Self-heal (the comment that links it).
    const groupPlan = issues.locator('.monaco-list-row', { hasText: 'on disk, not linked' }).first();
    await groupPlan.hover();
    await groupPlan.locator('.action-label[aria-label^="Self-heal"]').waitFor({ state: 'visible', timeout: 10_000 });
    await shot(page, 'npm-start-issues');
    assert.ok(github!.gh.requests.length > 0 && github!.gh.requests.every((q: { authorized: boolean }) => !q.authorized), 'the stand-in is read, and sent no token');
  });
});
