/**
 * The Stories view at the workbench's default side-bar width: every story's state is readable
 * without hovering, and the Stories view gets the room (Runs smaller, Memory collapsed).
 */
import * as assert from 'node:assert/strict';
import { openRalphContainer, pane, quickOpen, runCommand, shot, storiesPane, useWorkbench } from './workbench';

describe('Stories view at the default side-bar width (demo workspace)', function () {
  const ui = useWorkbench();

  it("each story row shows the story's state in the visible part of its text, and all 12 stories fit", async () => {
    await openRalphContainer(ui.page);
    const sideBar = await ui.page.locator('.part.sidebar').boundingBox();
    assert.ok(sideBar, 'the side bar is shown');
    console.log(`      side bar width: ${Math.round(sideBar.width)} px`);
    assert.ok(sideBar.width <= 320, `the side bar has its default width (about 300 px), not ${sideBar.width}`);
    assert.equal(await pane(ui.page, 'Memory').locator('.pane-header').first().getAttribute('aria-expanded'), 'false', 'Memory starts collapsed');

    // For each row: its label text, and whether the "<id> · <state>" prefix is drawn inside the row.
    const rows = await storiesPane(ui.page).locator('.monaco-list-row[aria-level="1"]').evaluateAll((els) =>
      els.map((row) => {
        const name = row.querySelector('.label-name');
        const text = name?.textContent ?? '';
        const m = /^(.+? · \w+)/.exec(text);
        let visible = false;
        const node = name ? document.createTreeWalker(name, NodeFilter.SHOW_TEXT).nextNode() : null;
        if (m && node) {
          const range = document.createRange();
          range.setStart(node, 0);
          range.setEnd(node, Math.min(m[1].length, node.textContent?.length ?? 0));
          const r = range.getBoundingClientRect();
          const box = row.getBoundingClientRect();
          // Not cut off by the row (nor by the label's own ellipsis box).
          const clip = (name as HTMLElement).closest('.monaco-icon-label-container')?.getBoundingClientRect() ?? box;
          visible = r.width > 0 && r.right <= Math.min(box.right, clip.right) + 0.5;
        }
        return { text, prefix: m?.[1], visible };
      }),
    );
    assert.equal(rows.length, 12, `all 12 stories are drawn in the Stories view: ${JSON.stringify(rows.map((r) => r.text))}`);
    for (const r of rows) {
      assert.match(r.prefix ?? '', /^US-\d{3} · (next|ready|blocked|done|invalid|running)$/, `row "${r.text}" starts with its id and state`);
      assert.ok(r.visible, `the state of "${r.text}" is cut off at the default width`);
    }
    await ui.page.mouse.move(900, 300);
    await shot(ui.page, '05-stories-default-width');
  });

  it('the demo opens clean: a TypeScript source without node_modules adds no problem once the TypeScript server has answered for it', async () => {
    await quickOpen(ui.page, 'src/api/tasks.ts', 'tasks.ts');
    // The TypeScript server has loaded the file when it answers a hover on `SELECT_TASK`.
    const word = ui.page.locator('.editor-instance .view-line span', { hasText: /^SELECT_TASK$/ }).first();
    // A busy machine may take a while to open and tokenize the editor.
    await word.waitFor({ state: 'visible', timeout: 45_000 });
    const hover = ui.page.locator('.monaco-hover:not(.hidden)', { hasText: 'const SELECT_TASK' });
    const deadline = Date.now() + 60_000;
    while (!(await hover.isVisible().catch(() => false))) {
      assert.ok(Date.now() < deadline, 'the TypeScript server did not answer a hover in src/api/tasks.ts within 60 s');
      await ui.page.mouse.move(10, 10);
      await word.hover();
      await hover.waitFor({ state: 'visible', timeout: 3_000 }).catch(() => undefined);
    }
    // Without node_modules, `import { Router } from "express"` alone would be an error here.
    const problems = ui.page.locator('.statusbar-item[id="status.problems"]');
    const label = (await problems.getAttribute('aria-label')) ?? (await problems.innerText());
    if (!/No Problems|^0 errors?, 0 warnings?/i.test(label)) {
      await runCommand(ui.page, 'View: Focus Problems (Errors, Warnings, Infos)');
      const panel = ui.page.locator('.markers-panel');
      await panel.waitFor({ state: 'visible', timeout: 10_000 });
      assert.fail(`the Problems indicator says "${label}"; the Problems panel: ${await panel.innerText()}`);
    }
    await shot(ui.page, '06-demo-opens-clean');
  });
});
