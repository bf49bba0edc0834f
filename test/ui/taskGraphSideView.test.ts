/**
 * The Task Graph side view at the workbench's default side-bar width (about 300 px), opened as a
 * new user opens it: the Ralph container as it starts, then a click on the view's header.
 */
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { eventually, graphFrame, openRalphContainer, pane, setExpanded, shot, useWorkbench } from './workbench';

/** The rows of the wave list that are wholly inside the webview's visible area. */
async function visibleRows(f: Frame): Promise<string[]> {
  return f.locator('.row').evaluateAll((els) => {
    const list = document.querySelector('.wave-list')?.getBoundingClientRect();
    return els
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return list !== undefined && r.height > 0 && r.top >= list.top - 0.5 && r.bottom <= Math.min(list.bottom, window.innerHeight) + 0.5;
      })
      .map((e) => e.getAttribute('data-id') ?? '');
  });
}

describe('Task Graph side view at the default side-bar width (demo workspace)', function () {
  const ui = useWorkbench();

  it('opens with room for several stories, not one row', async () => {
    await openRalphContainer(ui.page);
    const sideBar = await ui.page.locator('.part.sidebar').boundingBox();
    assert.ok(sideBar && sideBar.width <= 320, `the side bar has its default width (about 300 px), not ${sideBar?.width}`);
    await setExpanded(ui.page, 'Task Graph', true);
    const f = await graphFrame(ui.page, 'sidebar');
    await eventually('12 rows in the wave list', async () => (await f.locator('.row').count()) === 12, 15_000, () => f.locator('.row').count());
    const box = await pane(ui.page, 'Task Graph').locator('.pane-body').boundingBox();
    console.log(`      Task Graph pane body: ${Math.round(box?.width ?? 0)} × ${Math.round(box?.height ?? 0)} px`);
    await shot(ui.page, 'task-graph-side-view-first-open');
    const seen = await visibleRows(f);
    assert.ok(seen.length >= 4, `at least four stories can be read at first open, saw ${seen.length}: ${seen.join(', ')}`);
  });
});
