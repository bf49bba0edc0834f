/**
 * The Task Graph in the real workbench: the side-bar wave list, the editor drawing (every story
 * and every edge counted in the webview's DOM), selection shared with the Stories view, keyboard
 * navigation along edges, a cycle highlighted, a hostile title shown as text, and screenshots in
 * the dark, light and high-contrast themes.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { clearHovers, eventually, graphFrame, openDemo, openDemoGraphs, openRalphContainer, runCommand, setExpanded, shot, storiesPane, useWorkbench, fakeAgentSettings, nodeInView, zoomOutUntil } from './workbench';

/** The editor drawing, brought to the front by its command (which reveals an open panel or opens one). */
async function editorGraph(page: Page): Promise<Frame> {
  await runCommand(page, 'Ralph: Open Task Graph in Editor');
  await page.locator('.tabs-container .tab.active', { hasText: 'Task Graph' }).waitFor({ state: 'visible', timeout: 10_000 });
  const f = await graphFrame(page, 'editor');
  // The last click may have been on the graph's tab, whose hover would then cover the toolbar.
  await clearHovers(page);
  return f;
}

describe('Task Graph in the VS Code UI (demo workspace)', function () {
  const ui = useWorkbench();

  it('the side bar lists the stories by wave, readable at 300 px', async () => {
    await openRalphContainer(ui.page);
    await setExpanded(ui.page, 'Runs', false);
    await setExpanded(ui.page, 'Memory', false);
    await setExpanded(ui.page, 'Task Graph', true);
    const f = await graphFrame(ui.page, 'sidebar');
    await eventually('12 rows in the wave list', async () => (await f.locator('.row').count()) === 12, 15_000, () => f.locator('.row').count());
    const groups = await f.locator('.group-label').allInnerTexts();
    assert.deepEqual(groups.map((g) => g.replace(/\s+·.*$/, '').trim().toUpperCase()), ['WAVE 1', 'WAVE 2', 'WAVE 3', 'WAVE 4', 'DONE']);
    const first = await f.locator('.row').first().getAttribute('aria-label');
    assert.match(first ?? '', /^US-006 Sort tasks by priority, blocked by US-002, wave 1, ready, runs next/);
    await shot(ui.page, 'task-graph-sidebar');
  });

  it('the editor drawing shows every story and every edge, with accessible names', async () => {
    await runCommand(ui.page, 'Ralph: Open Task Graph in Editor');
    const f = await graphFrame(ui.page, 'editor');
    // it opens readable and scrolls: zoomed out, the whole graph is drawn
    await zoomOutUntil(f, '12 nodes and 15 edges in the drawing', async () => (await f.locator('g.node').count()) === 12 && (await f.locator('path.edge').count()) === 15);
    const label = await f.locator('g.node[data-id="US-012"]').getAttribute('aria-label');
    assert.equal(label, 'US-012 Document priorities and add an onboarding tip, blocked by US-007 and US-011, wave 4, blocked, on the critical path');
    assert.equal(await f.locator('g.node.critical').count(), 4, 'the critical path has four stories');
    assert.equal(await f.locator('path.edge.critical').count(), 3);
    assert.match(await f.locator('.legend').innerText(), /B waits on A \(A blocks B\)/);
    await shot(ui.page, 'task-graph-light');
  });

  it('clicking a node selects it and reveals it in the Stories view; selecting in Stories selects in the graph', async () => {
    const f = await editorGraph(ui.page);
    await f.locator('g.node[data-id="US-009"]').click();
    const selected = storiesPane(ui.page).locator('.monaco-list-row.selected');
    await eventually('US-009 selected in the Stories view', async () => ((await selected.first().getAttribute('aria-label')) ?? '').startsWith('US-009'), 10_000, () => selected.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))));
    assert.equal(await f.locator('g.node.selected').getAttribute('data-id'), 'US-009');
    // A click in Stories opens prd.json at the story, which hides the graph's tab: when the tab
    // shows again, the page is reloaded and the host replays the graph and the selection.
    await storiesPane(ui.page).locator('.monaco-list-row[aria-label^="US-010"]').click();
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'prd.json' }).waitFor({ state: 'visible', timeout: 10_000 });
    await ui.page.locator('.tabs-container .tab', { hasText: 'Task Graph' }).click();
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'Task Graph' }).waitFor({ state: 'visible', timeout: 10_000 });
    const again = await graphFrame(ui.page, 'editor');
    await eventually('US-010 selected in the graph', async () => (await again.locator('g.node.selected').getAttribute('data-id')) === 'US-010', 10_000, () => again.locator('g.node.selected').count());
  });

  it('hover: the story’s ancestors and descendants stay bright, the rest dims; leaving the node clears it', async () => {
    const f = await editorGraph(ui.page);
    await f.locator('vscode-toolbar-button[data-action="fit"]').click();
    // readable at fit, the graph scrolls: zoomed out by hand, it is drawn whole
    await zoomOutUntil(f, 'every story drawn, US-009 in view', async () => (await f.locator('g.node').count()) === 12 && (await nodeInView(f, 'US-009')));
    // the lineage of US-009, from the edges the page draws (blocker → blocked)
    const edges = await f.locator('path.edge').evaluateAll((els) => els.map((e) => [e.getAttribute('data-from') ?? '', e.getAttribute('data-to') ?? ''] as const));
    const walk = (start: string, next: (id: string) => string[]): Set<string> => {
      const seen = new Set([start]);
      const stack = [start];
      while (stack.length > 0) {
        for (const n of next(stack.pop() as string)) {
          if (!seen.has(n)) {
            seen.add(n);
            stack.push(n);
          }
        }
      }
      return seen;
    };
    const up = walk('US-009', (id) => edges.filter(([, to]) => to === id).map(([from]) => from));
    const down = walk('US-009', (id) => edges.filter(([from]) => from === id).map(([, to]) => to));
    const expected = [...new Set([...up, ...down])].sort();
    assert.ok(expected.length > 2 && expected.length < 12, `a lineage that leaves some stories out: ${expected.join(', ')}`);
    await f.locator('g.node[data-id="US-009"]').hover();
    const lit = (): Promise<string[]> => f.locator('.canvas-wrap.hovering g.node.lit').evaluateAll((els) => els.map((e) => e.getAttribute('data-id') ?? '').sort());
    await eventually('the lineage of US-009 lit', async () => JSON.stringify(await lit()) === JSON.stringify(expected), 5_000, lit);
    const opacity = (id: string): Promise<string> => f.locator(`g.node[data-id="${id}"]`).evaluate((e) => getComputedStyle(e).opacity);
    const outside = (await f.locator('g.node').evaluateAll((els) => els.map((e) => e.getAttribute('data-id') ?? ''))).find((id) => !expected.includes(id)) as string;
    assert.equal(await opacity(outside), '0.25', `${outside} is not in the lineage: dimmed`);
    assert.equal(await opacity('US-009'), '1');
    const litEdges = await f.locator('path.edge.lit').count();
    assert.ok(litEdges >= expected.length - 1, `the lineage's edges are lit (${litEdges})`);
    await shot(ui.page, 'task-graph-hover');
    // off the nodes: the picture is whole again
    const box = await (await f.frameElement()).boundingBox();
    await ui.page.mouse.move((box?.x ?? 0) + 5, (box?.y ?? 0) + (box?.height ?? 200) - 5);
    await eventually('no highlight once the pointer left', async () => (await f.locator('.canvas-wrap.hovering').count()) === 0, 5_000);
    assert.equal(await opacity(outside), '1');
  });

  it('keyboard: → to a dependent, ← to a blocker, ↑/↓ within the wave', async () => {
    const f = await editorGraph(ui.page);
    await zoomOutUntil(f, 'US-009 in view', () => nodeInView(f, 'US-009'));
    await f.locator('g.node[data-id="US-009"]').click();
    const focused = (): Promise<string | null> => f.evaluate(() => document.activeElement?.getAttribute('data-id') ?? null);
    await f.locator('g.node[data-id="US-009"]').focus();
    await ui.page.keyboard.press('ArrowRight');
    await eventually('focus on US-011 (waits on US-009)', async () => (await focused()) === 'US-011', 5_000, focused);
    await ui.page.keyboard.press('ArrowRight');
    await eventually('focus on US-012', async () => (await focused()) === 'US-012', 5_000, focused);
    await ui.page.keyboard.press('ArrowLeft');
    await eventually('focus back on a blocker of US-012', async () => ['US-007', 'US-011'].includes((await focused()) ?? ''), 5_000, focused);
    await f.locator('vscode-toolbar-button[data-action="fit"]').click();
    await zoomOutUntil(f, 'US-005 in view', () => nodeInView(f, 'US-005'));
    await f.locator('g.node[data-id="US-005"]').click();
    await f.locator('g.node[data-id="US-005"]').focus();
    await ui.page.keyboard.press('ArrowDown');
    const peer = await focused();
    assert.ok(['US-006', 'US-008', 'US-010'].includes(peer ?? ''), `↓ from US-005 should stay in wave 1, got ${peer}`);
  });

  it('the detail pane: a clicked story shows its description and criteria; an edited title is saved to prd.json and drawn', async () => {
    const prd = path.join(ui.folder, 'prd.json');
    const original = readFileSync(prd, 'utf8');
    const story = JSON.parse(original).userStories.find((x: { id: string }) => x.id === 'US-008');
    try {
      const f = await editorGraph(ui.page);
      await f.locator('vscode-toolbar-button[data-action="fit"]').click();
      await f.locator('g.node[data-id="US-008"]').click();
      const pane = f.locator('aside.detail');
      await eventually('the pane to show US-008 with its description', async () => (await pane.locator('h2').textContent())?.startsWith('US-008') === true && (await pane.locator('vscode-textarea#f-description').evaluate((e) => (e as HTMLElement & { value: string }).value)) === story.description, 10_000, () => pane.innerText());
      assert.equal(await pane.locator('vscode-textarea[id^="f-acceptance"]').evaluate((e) => (e as HTMLElement & { value: string }).value), story.acceptanceCriteria.join('\n'));
      await pane.locator('vscode-textfield#f-title input').fill('Notify assignees, edited in the graph');
      await pane.locator('vscode-button.save').click();
      await eventually('prd.json to hold the new title', async () => JSON.parse(readFileSync(prd, 'utf8')).userStories.find((x: { id: string }) => x.id === 'US-008').title === 'Notify assignees, edited in the graph', 10_000);
      await eventually('the node to show the new title', async () => ((await f.locator('g.node[data-id="US-008"] text.title').textContent()) ?? '').startsWith('Notify assignees, edited'), 10_000);
      const after = readFileSync(prd, 'utf8');
      assert.equal(after.replace('"title": "Notify assignees, edited in the graph"', `"title": ${JSON.stringify(story.title)}`), original, 'only the title changed (formatting and key order kept)');
      await shot(ui.page, 'task-graph-detail-pane');
    } finally {
      writeFileSync(prd, original);
    }
  });

  it('the detail pane keeps a draft when an agent changes the story on disk: "changed on disk", Keep mine / Take theirs', async () => {
    const prd = path.join(ui.folder, 'prd.json');
    const original = readFileSync(prd, 'utf8');
    /** What an agent does: rewrites prd.json with a new title for US-008. */
    const agentWrites = (title: string): void => {
      const data = JSON.parse(readFileSync(prd, 'utf8'));
      data.userStories.find((x: { id: string }) => x.id === 'US-008').title = title;
      writeFileSync(prd, `${JSON.stringify(data, null, 2)}\n`);
    };
    try {
      const f = await editorGraph(ui.page);
      await f.locator('vscode-toolbar-button[data-action="fit"]').click();
      await f.locator('g.node[data-id="US-008"]').click();
      const pane = f.locator('aside.detail');
      const title = pane.locator('vscode-textfield#f-title');
      const titleValue = (): Promise<string> => title.evaluate((e) => (e as HTMLElement & { value: string }).value);
      const nodeTitle = (): Promise<string> => f.locator('g.node[data-id="US-008"] text.title').textContent().then((t) => t ?? '');
      const notice = pane.locator('.disk-change');
      await eventually('the pane to show US-008', async () => (await pane.locator('h2').textContent())?.startsWith('US-008') === true && (await title.count()) === 1, 10_000, () => pane.innerText());

      await title.locator('input').fill('My draft title');
      agentWrites('The agent renamed it');
      await eventually('the drawing to show the title written on disk', async () => (await nodeTitle()).startsWith('The agent renamed'), 10_000, nodeTitle);
      await eventually('the "changed on disk" notice', async () => notice.isVisible(), 5_000, () => pane.innerText());
      assert.equal(await titleValue(), 'My draft title', 'the draft is still in the field');
      assert.match(await notice.innerText(), /US-008 changed on disk/);
      await shot(ui.page, 'task-graph-detail-changed-on-disk');

      // Take theirs: the field shows the text on disk, the notice goes
      await notice.locator('vscode-button', { hasText: 'Take theirs' }).click();
      await eventually('the field to take the new text', async () => (await titleValue()) === 'The agent renamed it', 5_000, titleValue);
      assert.equal(await notice.count(), 0, 'no notice once resolved');

      // Keep mine: the draft stays, and Save writes it over the agent's
      await title.locator('input').fill('My second draft');
      agentWrites('The agent renamed it again');
      await eventually('the notice again', async () => notice.isVisible(), 10_000, () => pane.innerText());
      await notice.locator('vscode-button', { hasText: 'Keep mine' }).click();
      await eventually('the notice to go', async () => (await notice.count()) === 0, 5_000);
      assert.equal(await titleValue(), 'My second draft');
      await pane.locator('vscode-button.save').click();
      await eventually('prd.json to hold the draft', async () => JSON.parse(readFileSync(prd, 'utf8')).userStories.find((x: { id: string }) => x.id === 'US-008').title === 'My second draft', 10_000);
    } finally {
      writeFileSync(prd, original);
    }
  });

  it('a message the page rejects shows what was wrong over the last good picture, never a blank page', async () => {
    const f = await editorGraph(ui.page);
    await eventually('the drawing', async () => (await f.locator('g.node').count()) > 0, 10_000);
    // what a host bug would post: a graph message the page's schema refuses (an id over 500 characters)
    await f.evaluate(() => window.dispatchEvent(new MessageEvent('message', { data: { type: 'select', id: 'x'.repeat(600) } })));
    const panel = f.locator('.rejected');
    await eventually('the error panel', async () => panel.isVisible(), 5_000);
    assert.match(await panel.innerText(), /could not show an update.*select.*id/is);
    assert.ok((await f.locator('g.node').count()) > 0, 'the last good picture stays');
    await shot(ui.page, 'task-graph-rejected-message');
    // the next good message of that kind clears it
    await f.evaluate(() => window.dispatchEvent(new MessageEvent('message', { data: { type: 'select', id: 'US-001' } })));
    await eventually('the panel to go once a good select message came', async () => (await panel.count()) === 0, 5_000);
  });

  it('a story with a title over 100,000 characters and an id over 500 is drawn, clamped, with the rest of the graph', async () => {
    const prd = path.join(ui.folder, 'prd.json');
    const original = readFileSync(prd, 'utf8');
    const data = JSON.parse(original);
    data.userStories[7].title = 'T'.repeat(150_000);
    data.userStories[8].id = `US-${'9'.repeat(700)}`;
    writeFileSync(prd, `${JSON.stringify(data, null, 2)}\n`);
    try {
      const f = await editorGraph(ui.page);
      const fit = f.locator('vscode-toolbar-button[data-action="fit"]');
      await fit.click({ timeout: 2_000 });
      await zoomOutUntil(f, 'the hostile stories drawn with the other ten', async () => {
        return (await f.locator('g.node').count()) === 12 && ((await f.locator('g.node[data-id="US-008"]').getAttribute('aria-label')) ?? '').includes('150,000 characters');
      });
      const rejected = await f.locator('.rejected').allInnerTexts();
      assert.ok(!rejected.some((t) => /graph message/.test(t)), `the graph message was accepted: ${rejected.join(' | ')}`);
      assert.match((await f.locator('g.node[data-id^="US-999"]').getAttribute('aria-label')) ?? '', /^US-9+… \(703 characters, #[0-9a-f]{8}\)/, 'the long id is drawn shortened, its length said');
    } finally {
      writeFileSync(prd, original);
    }
  });

  it('a cycle is highlighted; a hostile title is shown as text', async () => {
    const prd = path.join(ui.folder, 'prd.json');
    const original = readFileSync(prd, 'utf8');
    const data = JSON.parse(original);
    data.userStories[4].blockedBy = ['US-003', 'US-012'];
    data.userStories[7].title = '<img src=x onerror=alert(1)>';
    writeFileSync(prd, `${JSON.stringify(data, null, 2)}\n`);
    try {
      const f = await editorGraph(ui.page);
      // Only what is in view is drawn: zoom out (after the re-layout) until the whole cycle is drawn.
      const fit = f.locator('vscode-toolbar-button[data-action="fit"]');
      await fit.click({ timeout: 2_000 });
      await zoomOutUntil(f, 'the three cycle edges and their stories in the drawing (US-005 → US-011 → US-012 → US-005)', async () => (await f.locator('path.edge.cycle').count()) === 3 && (await f.locator('g.node.cycle').count()) === 3);
      assert.deepEqual((await f.locator('g.node.cycle').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')))).sort(), ['US-005', 'US-011', 'US-012']);
      assert.match((await f.locator('g.node[data-id="US-005"]').getAttribute('aria-label')) ?? '', /in a dependency cycle/);
      assert.equal(await f.locator('img').count(), 0, 'no element was created from the title');
      await eventually('the hostile title as text', async () => (await f.locator('g.node[data-id="US-008"] text.title').textContent()) === '<img src=x onerror=alert(1)>');
      await shot(ui.page, 'task-graph-cycle');
    } finally {
      writeFileSync(prd, original);
    }
  });
});

describe('Task Graph while an agent runs (demo workspace, fake agent)', function () {
  // A fresh git copy of the demo (clean working tree, so the runner asks nothing) and the fake
  // agent as the custom agent; the delay keeps the iteration running long enough to look at it.
  const ui = useWorkbench(() => openDemo(fakeAgentSettings(8000)));
  const TERMINAL_NAME = 'Ralph: US-006 — Sort tasks by priority';

  it('the running story is marked with its iteration i/N; clicking the mark shows its terminal', async () => {
    assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: ui.folder, encoding: 'utf8' }).trim(), '', 'the demo copy has a clean working tree');
    await openRalphContainer(ui.page);
    await runCommand(ui.page, 'Ralph: Open Task Graph in Editor');
    const f = await graphFrame(ui.page, 'editor');
    await zoomOutUntil(f, '12 nodes in the drawing', async () => (await f.locator('g.node').count()) === 12);
    assert.equal(await f.locator('g.node.running').count(), 0, 'nothing runs yet');

    // Run from the Stories view title, as a user would (the graph keeps its editor).
    await storiesPane(ui.page).locator('.pane-header').hover();
    const run = storiesPane(ui.page).locator('.pane-header a.action-label[aria-label="Run Next Ready Story"]');
    await run.waitFor({ state: 'visible', timeout: 10_000 });
    await run.click();
    const node = f.locator('g.node[data-id="US-006"]');
    const mark = node.locator('.run-mark');
    await eventually('US-006 marked as running with iteration 1/1', async () => /^▶ 1\/1 · /.test((await mark.textContent({ timeout: 500 })) ?? ''), 20_000, async () => [await f.locator('g.node.running').evaluateAll((els) => els.map((e) => e.getAttribute('data-id'))), await mark.count()]);
    assert.deepEqual(await f.locator('g.node.running').evaluateAll((els) => els.map((e) => e.getAttribute('data-id'))), ['US-006'], 'only the running story is marked');
    assert.match((await node.getAttribute('aria-label')) ?? '', /running now/);
    assert.equal(await mark.getAttribute('aria-label'), "US-006 running, iteration 1 of 1: show its agent's terminal");

    // Hide the panel (the run revealed its terminal), then the mark brings the terminal back.
    const terminalTab = ui.page.locator('.part.panel').getByText(TERMINAL_NAME, { exact: true });
    await runCommand(ui.page, 'View: Hide Panel');
    await eventually('the panel to be hidden', async () => !(await terminalTab.first().isVisible()), 10_000);
    await mark.click();
    await eventually(`the terminal "${TERMINAL_NAME}" to show`, async () => terminalTab.first().isVisible(), 10_000);
    await shot(ui.page, 'task-graph-running');

    // When the iteration ends the mark goes and the story is done.
    await eventually('the mark to go and US-006 to be done', async () => (await f.locator('g.node.running').count()) === 0 && /\bstate-done\b/.test((await node.getAttribute('class')) ?? ''), 40_000, () => node.getAttribute('class'));
  });
});

for (const [theme, name] of [
  ['Default Dark Modern', 'dark'],
  ['Default High Contrast', 'high-contrast'],
] as const) {
  describe(`Task Graph in the ${name} theme`, function () {
    const ui = useWorkbench(() => openDemo({ 'workbench.colorTheme': theme }));

    it(`draws every story in the ${name} theme (screenshot)`, async () => {
      const f = await openDemoGraphs(ui.page);
      await f.locator('g.node[data-id="US-009"]').click();
      await eventually('US-009 selected', async () => (await f.locator('g.node.selected').count()) === 1);
      await shot(ui.page, `task-graph-${name}`);
    });
  });
}
