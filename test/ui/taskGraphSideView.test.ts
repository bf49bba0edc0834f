/**
 * The Task Graph side view at the workbench's default side-bar width (about 300 px), opened as a
 * new user opens it: the Ralph container as it starts, then a click on the view's header.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { eventually, graphFrame, openRalphContainer, pane, rows, runCommand, setExpanded, shot, showRalph, untilShown, useWorkbench } from './workbench';

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

  it('a long id and title are ellipsised inside the row, nothing clipped or overlapping, the full text on hover', async () => {
    const prd = path.join(ui.folder, 'prd.json');
    const original = readFileSync(prd, 'utf8');
    const data = JSON.parse(original);
    // US-010 has no dependents: its id can change without breaking a dependency
    const id = 'US-010-keyboard-shortcuts-everywhere';
    const title = 'Keyboard shortcuts for priority: raise and lower the priority of the selected task from the list, the board and the edit dialog';
    Object.assign(data.userStories[9], { id, title });
    writeFileSync(prd, `${JSON.stringify(data, null, 2)}\n`);
    try {
      await showRalph(ui.page);
      await setExpanded(ui.page, 'Task Graph', true);
      const f = await graphFrame(ui.page, 'sidebar');
      const row = f.locator(`.row[data-id="${id}"]`);
      await eventually('the renamed story in the wave list', async () => (await row.count()) === 1, 15_000);
      await row.scrollIntoViewIfNeeded();
      // (no named functions inside evaluate: the test build's helpers do not exist in the page)
      const seen = await row.evaluate((r) => {
        const list = document.querySelector('.wave-list') as HTMLElement;
        const right = Math.min(r.getBoundingClientRect().right, list.getBoundingClientRect().left + list.clientWidth);
        const parts = Array.from(r.children).map((c) => ({ cls: c.className, left: c.getBoundingClientRect().left, right: c.getBoundingClientRect().right }));
        const texts = ['.id', '.title'].map((sel) => {
          const e = r.querySelector(sel) as HTMLElement;
          return {
            hover: e.closest('[title]')?.getAttribute('title') ?? '',
            cut: getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth && e.getBoundingClientRect().height < 30,
          };
        });
        return { right, parts, idHover: texts[0].hover, titleHover: texts[1].hover, idCut: texts[0].cut, titleCut: texts[1].cut, listScrolls: list.scrollWidth > list.clientWidth + 1 };
      });
      await shot(ui.page, 'task-graph-side-view-long-title');
      assert.ok(seen.titleCut, 'the long title ends in an ellipsis on one line');
      assert.ok(seen.idCut, 'the long id ends in an ellipsis on one line');
      assert.ok(seen.titleHover.includes(title), `hovering the title shows it whole, got "${seen.titleHover}"`);
      assert.ok(seen.idHover.includes(id), `hovering the id shows it whole, got "${seen.idHover}"`);
      assert.equal(seen.listScrolls, false, 'the wave list does not scroll sideways');
      for (const p of seen.parts) {
        assert.ok(p.right <= seen.right + 0.5, `${p.cls} is cut off by the side bar (${p.right} > ${seen.right})`);
      }
      for (let k = 1; k < seen.parts.length; k++) {
        assert.ok(seen.parts[k].left >= seen.parts[k - 1].right - 0.5, `${seen.parts[k].cls} overlaps ${seen.parts[k - 1].cls}`);
      }
    } finally {
      writeFileSync(prd, original);
    }
  });

  it('a status message goes when what it says stops being true', async () => {
    const prd = path.join(ui.folder, 'prd.json');
    const original = readFileSync(prd, 'utf8');
    try {
      await showRalph(ui.page);
      await setExpanded(ui.page, 'Task Graph', true);
      const f = await graphFrame(ui.page, 'sidebar');
      const notice = f.locator('.status .notice');
      const status = (): Promise<string> => f.locator('.status').innerText();
      await eventually('the wave list', async () => (await f.locator('.row').count()) > 0, 15_000);

      // prd.json cannot be read: Copy says so; once the file is fixed, the message goes with the stale line
      writeFileSync(prd, original.replace('"userStories"', '"userStories" ]'));
      await eventually('the stale line', async () => (await f.locator('.status .stale').count()) === 1, 15_000, status);
      await f.locator('vscode-toolbar-button[data-action="copyText"]').click();
      await eventually('the error', async () => /cannot be read right now/.test(await notice.innerText({ timeout: 500 })), 10_000, status);
      await shot(ui.page, 'task-graph-side-view-status-error');
      writeFileSync(prd, original);
      await eventually('the stale line to go', async () => (await f.locator('.status .stale').count()) === 0, 15_000, status);
      await eventually('the error to go once prd.json can be read', async () => (await notice.count()) === 0, 5_000, status);

      // what Copy answered holds for the picture it copied: a change to the stories ends it
      await f.locator('vscode-toolbar-button[data-action="copyText"]').click();
      await eventually('the answer of Copy', async () => (await notice.count()) === 1, 10_000, status);
      const data = JSON.parse(original);
      data.userStories[5].passes = true;
      writeFileSync(prd, `${JSON.stringify(data, null, 2)}\n`);
      await eventually('the answer to go once the stories changed', async () => (await notice.count()) === 0, 15_000, status);
    } finally {
      writeFileSync(prd, original);
    }
  });

  it('Add blocker… lists only the stories it accepts and says why the others are missing', async () => {
    await runCommand(ui.page, 'Ralph: Open Task Graph in Editor');
    const f = await graphFrame(ui.page, 'editor');
    await f.locator('vscode-toolbar-button[data-action="fit"]').click();
    await f.locator('g.node[data-id="US-007"]').click();
    const add = f.locator('aside.detail vscode-button.add-blocker');
    await eventually('the detail pane of US-007', async () => (await f.locator('aside.detail h2').textContent())?.startsWith('US-007') === true && (await add.count()) === 1, 10_000);
    const widget = ui.page.locator('.quick-input-widget');
    await untilShown(ui.page, () => add.click(), widget.locator('.monaco-list-row').first(), 'the Add blocker pick');
    const list = widget.locator('.quick-input-list');
    await eventually('the offered stories', async () => (await rows(list)).length > 0, 10_000);
    const offered = (await rows(list)).map((r) => r.split(' | ')[0]);
    const placeholder = (await widget.locator('input').getAttribute('placeholder')) ?? '';
    await shot(ui.page, 'task-graph-add-blocker-pick');
    await ui.page.keyboard.press('Escape');
    assert.deepEqual(offered, ['US-001', 'US-002', 'US-003', 'US-005', 'US-008', 'US-009', 'US-010', 'US-011'], 'not itself, not its blockers, not US-012 (it waits on US-007)');
    assert.equal(placeholder, '3 stories not offered: would make a cycle (US-012), already a blocker (US-004, US-006)');
  });
});
