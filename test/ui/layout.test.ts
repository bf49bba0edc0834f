/**
 * The Stories view at the workbench's default side-bar width: every story's state is readable
 * without hovering, and the Stories view gets the room (Runs smaller, Memory collapsed).
 */
import * as assert from 'node:assert/strict';
import { openRalphContainer, pane, shot, storiesPane, useWorkbench } from './workbench';

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
});
