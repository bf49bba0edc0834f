/**
 * Issue 17 §6: a late answer is never taken for the current one. The test-build seam
 * RALPH_TEST_LATE_ANSWER holds the host's first `details` answer about US-008 back until it has
 * answered a newer request about US-008 (src/views/lateAnswerSeam.ts). Meanwhile an agent rewrites
 * the story on disk: the late answer carries the old text, and the detail pane must not show it.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { eventually, graphFrame, host, openRalphContainer, runCommand, nodeInView, useWorkbench, zoomOutUntil } from './workbench';

describe('Task Graph: a late answer for an earlier selection', function () {
  const ui = useWorkbench(async () => {
    const h = await host();
    const folder = h.copyFixture('examples/demo');
    const env = { RALPH_TEST_LATE_ANSWER: JSON.stringify({ type: 'details', id: 'US-008' }) };
    const wb = await h.openWorkbench({ folder, viewport: { width: 1400, height: 860 }, settings: { ...h.demoSettings }, env });
    return { wb, folder };
  });

  it('is dropped: the detail pane keeps the newer text of the story', async () => {
    const prd = path.join(ui.folder, 'prd.json');
    const original = JSON.parse(readFileSync(prd, 'utf8'));
    const oldDescription: string = original.userStories.find((x: { id: string }) => x.id === 'US-008').description;
    const newDescription = 'Rewritten by the agent while the first answer was on its way.';

    await openRalphContainer(ui.page);
    await runCommand(ui.page, 'Ralph: Open Task Graph in Editor');
    const f = await graphFrame(ui.page, 'editor');
    await zoomOutUntil(f, '12 nodes in the drawing', async () => (await f.locator('g.node').count()) === 12);
    await f.locator('vscode-toolbar-button[data-action="fit"]').click();
    const pane = f.locator('aside.detail');
    const heading = (): Promise<string> => pane.locator('h2').textContent().then((t) => t ?? '');
    const description = (): Promise<string | undefined> =>
      pane.locator('vscode-textarea#f-description').evaluate((e) => (e as HTMLElement & { value: string }).value).catch(() => undefined);

    // 1. US-008 selected: its answer is held back, the pane waits for it
    await f.locator('g.node[data-id="US-008"]').click();
    await eventually('the pane to wait for US-008', async () => (await heading()).startsWith('US-008') && /Loading US-008/.test(await pane.innerText()), 10_000, () => pane.innerText());

    // 2. a newer selection: US-009 is shown (the graph scrolls at a readable zoom: zoomed out to reach it)
    await zoomOutUntil(f, 'US-009 in view', () => nodeInView(f, 'US-009'));
    await f.locator('g.node[data-id="US-009"]').click();
    await eventually('the pane to show US-009', async () => (await heading()).startsWith('US-009') && (await description()) !== undefined, 10_000, () => pane.innerText());

    // 3. an agent rewrites US-008 on disk (its title too, so the drawing says when the page knows)
    const data = JSON.parse(readFileSync(prd, 'utf8'));
    const story = data.userStories.find((x: { id: string }) => x.id === 'US-008');
    story.description = newDescription;
    story.title = 'Notify assignees (rewritten)';
    writeFileSync(prd, `${JSON.stringify(data, null, 2)}\n`);
    const nodeTitle = (): Promise<string> => f.locator('g.node[data-id="US-008"] text.title').textContent().then((t) => t ?? '');
    await eventually('the drawing to show the rewritten title', async () => (await nodeTitle()).startsWith('Notify assignees (rewritten)'), 10_000, nodeTitle);

    // 4. US-008 selected again: the host answers with the new text, then posts the held answer
    await zoomOutUntil(f, 'US-008 in view', () => nodeInView(f, 'US-008'));
    await f.locator('g.node[data-id="US-008"]').click();
    const late = (): Promise<number> => f.locator('.app').evaluate((e) => Number((e as HTMLElement).dataset.lateAnswers ?? '0'));
    await eventually('the late answer to reach the page (dropped, or shown)', async () => (await late()) >= 1 || (await description()) === oldDescription, 10_000, async () => [await late(), await description()]);
    assert.equal(await description(), newDescription, 'the late answer (the text before the agent rewrote it) was shown for the current selection');
    assert.doesNotMatch(await pane.innerText(), /changed on disk/, 'no "changed on disk" notice for an answer that was merely late');
  });
});
