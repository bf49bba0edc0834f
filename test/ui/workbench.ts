/**
 * Helpers of the UI suites: they drive the VS Code web workbench (real VS Code 1.139 from the
 * code-server package) in headless Chromium through playwright-core, like a user would.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import type * as HostModule from '../../scripts/vscode-host.mjs' with { 'resolution-mode': 'import' };

type Host = typeof HostModule;
export type Workbench = Awaited<ReturnType<Host['openWorkbench']>>;

let hostModule: Host | undefined;

/** The launcher (scripts/vscode-host.mjs, an ES module). */
export async function host(): Promise<Host> {
  hostModule ??= await import('../../scripts/vscode-host.mjs');
  return hostModule;
}

export const repoRoot = path.resolve(__dirname, '..', '..');
export const screenshotDir = path.join(repoRoot, 'test-results', 'ui');

/**
 * Copies examples/demo to a temp dir, starts the VS Code server with this repo as the extension
 * under development, and opens the workbench on the copy.
 */
export async function openDemo(settings?: Record<string, unknown>): Promise<{ wb: Workbench; folder: string }> {
  const h = await host();
  const folder = h.copyFixture('examples/demo');
  const wb = await h.openWorkbench({ folder, viewport: { width: 1400, height: 860 }, settings: { ...h.demoSettings, ...settings } });
  return { wb, folder };
}

/** The workbench of a describe block: its page and the workspace folder it opened. */
export interface UiSession {
  wb: Workbench;
  page: Page;
  folder: string;
}

/**
 * Registers the hooks of a describe block: opens a workbench before its tests (the demo by
 * default), screenshots each failed test, and closes everything after.
 */
export function useWorkbench(open: () => Promise<{ wb: Workbench; folder: string }> = () => openDemo()): UiSession {
  const ui = {} as UiSession;
  before(async function () {
    this.timeout(120_000);
    const { wb, folder } = await open();
    Object.assign(ui, { wb, folder, page: wb.page });
  });
  after(async () => {
    await ui.wb?.close();
    await (await host()).cleanupAll();
  });
  afterEach(async function () {
    await screenshotOnFailure(ui.page, this.currentTest);
  });
  return ui;
}

export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** The pane of a view in the Ralph container, by its title ("Stories", "Runs", "Memory"). */
export function pane(page: Page, title: string): Locator {
  return page.locator('.pane').filter({ has: page.locator(`.pane-header[aria-label^="${title}"]`) });
}

/** The pane of the Stories view. */
export function storiesPane(page: Page): Locator {
  return pane(page, 'Stories');
}

/** Expands or collapses a view's pane by clicking its header. */
export async function setExpanded(page: Page, title: string, expanded: boolean): Promise<void> {
  const header = pane(page, title).locator('.pane-header').first();
  await header.waitFor({ state: 'visible', timeout: 10_000 });
  if (((await header.getAttribute('aria-expanded')) === 'true') !== expanded) {
    await header.click();
  }
  await eventually(`the ${title} view to be ${expanded ? 'expanded' : 'collapsed'}`, async () => ((await header.getAttribute('aria-expanded')) === 'true') === expanded);
}

/** Visible rows of a list or tree: label, then description after " | ". */
export async function rows(list: Locator): Promise<string[]> {
  return list.locator('.monaco-list-row').evaluateAll((els) =>
    els.map((e) => {
      const label = e.querySelector('.label-name')?.textContent ?? '';
      const description = e.querySelector('.label-description')?.textContent ?? '';
      return description ? `${label} | ${description}` : label;
    }),
  );
}

/** An afterEach hook body: a screenshot named after the failed test, for a person to look at. */
export async function screenshotOnFailure(page: Page | undefined, test: Mocha.Test | undefined): Promise<void> {
  if (test?.state !== 'failed' || !page) {
    return;
  }
  const name = `failed-${(test.title || 'test').replace(/[^a-z0-9]+/gi, '-').toLowerCase().slice(0, 60)}`;
  const file = await shot(page, name).catch(() => undefined);
  if (file) {
    console.log(`      screenshot of the failure: ${path.relative(process.cwd(), file)}`);
  }
}

/** Tree rows of the Stories view whose accessible label starts with `prefix`. */
export function storyRow(page: Page, prefix: string): Locator {
  return storiesPane(page).locator(`.monaco-list-row[aria-label^="${prefix.replace(/"/g, '\\"')}"]`);
}

/** Visible text of each row of the Stories view: label, then description after " | ". */
export async function rowLabels(page: Page): Promise<string[]> {
  return rows(storiesPane(page));
}

/**
 * Settings that make the fake agent (test/fixtures/fake-agent.mjs) the custom agent: it passes its
 * story after `delayMs` (long enough to look at a running iteration in the workbench).
 */
export function fakeAgentSettings(delayMs: number): Record<string, string> {
  const agent = path.join(repoRoot, 'test', 'fixtures', 'fake-agent.mjs');
  return { 'ralph.agent.preset': 'custom', 'ralph.agent.command': `FAKE_AGENT_MODE=pass FAKE_AGENT_DELAY_MS=${delayMs} node "${agent}" \${promptFile}` };
}

/** Clicks the "Ralph" item of the activity bar and waits for the Stories tree to show rows. */
export async function openRalphContainer(page: Page): Promise<void> {
  const item = page.locator('.activitybar .action-item a.action-label[aria-label^="Ralph"]');
  await item.waitFor({ state: 'visible', timeout: 30_000 }).catch(() => {
    throw new Error('no "Ralph" item in the activity bar within 30 s (is the extension loaded?)');
  });
  // Right after a reload the workbench may still be restoring its layout: a click can be undone
  // (the side bar closed again) or toggle the container shut. Click again, as a user would, while
  // the side bar does not show the Stories rows, within the deadline.
  const firstRow = storiesPane(page).locator('.monaco-list-row').first();
  const deadline = Date.now() + 60_000;
  for (;;) {
    await item.click();
    if (await firstRow.waitFor({ state: 'visible', timeout: 10_000 }).then(() => true, () => false)) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error('the Stories view shows no rows within 60 s');
    }
    if (await page.locator('.part.sidebar').isVisible().catch(() => false)) {
      // The side bar is open on the Ralph container and its tree is still loading: wait, do not toggle it shut.
      if (await firstRow.waitFor({ state: 'visible', timeout: 20_000 }).then(() => true, () => false)) {
        return;
      }
    }
  }
}

/** Opens the Ralph container unless it is open already (clicking its icon again would close the side bar). */
export async function showRalph(page: Page): Promise<void> {
  if (!(await storiesPane(page).locator('.monaco-list-row').first().isVisible().catch(() => false))) {
    await openRalphContainer(page);
  }
}

/** Drags the sash right of the side bar so labels and descriptions are readable in screenshots. */
export async function widenSideBar(page: Page, width = 600): Promise<void> {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box) {return;}
  const edge = box.x + box.width;
  // The vertical sash whose centre is closest to the side bar's right edge.
  const sashes = page.locator('.monaco-sash.vertical');
  let best: { x: number; y: number; d: number } | undefined;
  for (const sash of await sashes.all()) {
    const b = await sash.boundingBox();
    if (!b || b.height < 100) {continue;}
    const x = b.x + b.width / 2;
    const d = Math.abs(x - edge);
    if (!best || d < best.d) {best = { x, y: b.y + b.height / 2, d };}
  }
  if (!best || best.d > 10) {return;}
  await page.mouse.move(best.x, best.y);
  await page.mouse.down();
  await page.mouse.move(best.x + 40, best.y, { steps: 4 });
  await page.mouse.move(box.x + width, best.y, { steps: 8 });
  await page.mouse.up();
}

/**
 * Runs a command through the command palette by its title, e.g. "Ralph: Open prd.json". With
 * `opensQuickPick`, the command shows a quick pick of its own in the same widget: this returns once
 * that quick pick has taken the palette's place, and leaves it open.
 */
export async function runCommand(page: Page, title: string, opts: { opensQuickPick?: boolean } = {}): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  const entry = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  // The palette takes its list of commands when it opens: in a window that is still registering
  // its extensions' contributions it can miss one, so look again in a new palette until the deadline.
  const deadline = Date.now() + 20_000;
  for (;;) {
    // A key pressed while a webview (the Task Graph) has the focus goes to its page, not to the
    // workbench: give the focus back to the workbench first, as a click outside the webview would.
    await page.evaluate(() => {
      const active = document.activeElement;
      if (active instanceof HTMLIFrameElement || active?.closest('.webview')) {
        (active as HTMLElement).blur();
      }
    });
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    // The palette closes when something else takes the focus as it opens (a panel closing after
    // its terminals were killed): its input is then inert while it fades out, and gone. A user
    // opens it again; so does this, until the deadline.
    const filled = await input.fill(`>${title}`, { timeout: 5_000 }).then(() => true, () => false);
    if (filled && (await entry.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false))) {
      break;
    }
    await page.keyboard.press('Escape');
    if (Date.now() > deadline) {
      throw new Error(filled ? `command "${title}" not found in the command palette` : `the command palette closed before "${title}" could be typed, each time until the deadline`);
    }
  }
  await input.press('Enter');
  if (opts.opensQuickPick) {
    await eventually(`the quick pick of "${title}"`, async () => !(await input.inputValue()).startsWith('>'));
  } else {
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  }
}

/**
 * Acts (a click) until what it opens is visible. A busy workbench sometimes drops a click: the
 * pointer's hover shows the tooltip, but the menu or the quick input never opens. Each attempt
 * waits `attemptMs` for `shown`; then Escape closes whatever half-opened, and the action is
 * done again, until the deadline. Only for actions whose effect is to show something (a menu,
 * a quick input): doing one twice must not change anything twice.
 */
export async function untilShown(page: Page, act: () => Promise<void>, shown: Locator, what: string, timeoutMs = 30_000, attemptMs = 4_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    await act();
    if (await shown.waitFor({ state: 'visible', timeout: attemptMs }).then(() => true, () => false)) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what} did not appear after ${attempt} tries in ${timeoutMs} ms`);
    }
    await page.keyboard.press('Escape');
  }
}

/** Waits until `probe` returns true, with a readable failure. */
export async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 10_000, last?: () => Promise<unknown>): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await probe().catch(() => false)) {return;}
    if (Date.now() - start > timeoutMs) {
      assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `; last seen: ${JSON.stringify(await last())}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The webview frame whose task-graph page runs in `mode` (webviews nest two iframes; search every frame). */
export async function graphFrame(page: Page, mode: 'sidebar' | 'editor'): Promise<Frame> {
  let found: Frame | undefined;
  await eventually(`the ${mode} task-graph webview to load`, async () => {
    for (const f of page.frames()) {
      if ((await f.locator(`body[data-mode="${mode}"] .app`).count().catch(() => 0)) > 0) {
        found = f;
        return true;
      }
    }
    return false;
  }, 30_000);
  return found as Frame;
}

/**
 * Opens a workspace file as a user does: Quick Open (Ctrl+P), its name, Enter; until its tab is
 * the active one. A busy workbench may answer the search late (no row yet) or drop the Enter (the
 * list still open, the file not opened): then the name is typed again and Enter pressed again,
 * within the deadline. A repeated Enter cannot open anything twice: it opens the same file's tab.
 */
export async function quickOpen(page: Page, query: string, tabText: string, timeoutMs = 90_000): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: tabText }).first();
  const tab = page.locator('.tabs-container .tab.active', { hasText: tabText });
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    assert.ok(Date.now() < deadline, `Quick Open did not open "${query}" within ${timeoutMs / 1000} s (${attempt - 1} tries)`);
    if (!(await input.isVisible().catch(() => false))) {
      await page.keyboard.press('Control+P');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
    }
    // While the workbench starts, the file search may answer late or not at all: type the query again.
    await input.fill('');
    await input.fill(query);
    if (!(await row.waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false))) {
      continue;
    }
    await input.press('Enter');
    if (await tab.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false)) {
      return;
    }
  }
}

/**
 * Moves the mouse off whatever it last clicked (to the empty middle of the status bar) and waits
 * until no workbench hover is showing: a tab's hover ("Task Graph") that opens late on a busy
 * machine lies over the top of the editor and would take the next click meant for the page below.
 */
export async function clearHovers(page: Page): Promise<void> {
  const size = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.mouse.move(Math.round(size.width / 2), size.height - 4);
  const hover = page.locator('.context-view .hover-contents, .workbench-hover-container .workbench-hover');
  await eventually('the workbench hover to close', async () => (await hover.count()) === 0 || !(await hover.first().isVisible().catch(() => false)), 10_000, () => hover.allInnerTexts());
}

/** Two animation frames of a webview page: what a resize or a click set off has been drawn. */
export async function settled(f: Frame): Promise<void> {
  await f.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/**
 * Zooms the editor graph out by hand (its toolbar's "Zoom out", at most `clicks` times) until
 * `done` holds, within the deadline. The graph opens at a readable zoom and scrolls rather than
 * shrink its labels, so a test that needs every story drawn zooms out as a user would.
 */
export async function zoomOutUntil(f: Frame, what: string, done: () => Promise<boolean>, timeoutMs = 20_000, clicks = 8): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let k = 0; ; ) {
    if (await done().catch(() => false)) {
      return;
    }
    if (Date.now() > deadline) {
      assert.fail(`timed out after ${timeoutMs} ms (zoomed out ${k} times) waiting for ${what}`);
    }
    if (k < clicks && (await f.locator('g.node').count()) > 0) {
      if (k === 0) {
        await clearHovers(f.page());
      }
      await f.locator('vscode-toolbar-button[data-action="zoomOut"]').click();
      k++;
      await settled(f);
    } else {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * The demo's Task Graph both ways: the Ralph container with the Task Graph view expanded (Runs and
 * Memory collapsed, so it has room), and the editor drawing, zoomed out until its 12 stories are drawn.
 */
export async function openDemoGraphs(page: Page): Promise<Frame> {
  await openRalphContainer(page);
  await setExpanded(page, 'Runs', false);
  await setExpanded(page, 'Memory', false);
  await setExpanded(page, 'Task Graph', true);
  await runCommand(page, 'Ralph: Open Task Graph in Editor');
  const f = await graphFrame(page, 'editor');
  await zoomOutUntil(f, '12 nodes in the drawing', async () => (await f.locator('g.node').count()) === 12);
  return f;
}

/** True when story `id` is drawn whole inside the editor graph's drawing (not clipped at its edges). */
export async function nodeInView(f: Frame, id: string): Promise<boolean> {
  return f.evaluate((storyId) => {
    const node = Array.from(document.querySelectorAll('g.node')).find((e) => e.getAttribute('data-id') === storyId);
    const wrap = document.querySelector('.canvas-wrap');
    if (!node || !wrap) {
      return false;
    }
    const n = node.getBoundingClientRect();
    const w = wrap.getBoundingClientRect();
    return n.left >= w.left && n.right <= w.right && n.top >= w.top && n.bottom <= w.bottom;
  }, id);
}

/** A view-title action of a pane (hovering the pane first: VS Code shows them on hover). */
export async function titleAction(page: Page, view: string, label: string): Promise<Locator> {
  await pane(page, view).locator('.pane-header').hover();
  const action = pane(page, view).locator(`.pane-header .actions a.action-label[aria-label="${label}"]`);
  await action.first().waitFor({ state: 'visible', timeout: 10_000 }).catch(() => {
    throw new Error(`no "${label}" action in the ${view} view's title`);
  });
  return action.first();
}

/** Clicks an entry of a view title's "More Actions..." menu. */
export async function overflowAction(page: Page, view: string, label: string): Promise<void> {
  const item = page.locator('.monaco-menu .action-item', { hasText: label }).first();
  // A busy workbench can close the menu it just opened (a view re-rendering its title actions as
  // the Task Graph page loads beside it): the item then detaches before the click lands. Playwright
  // reports a click only once it has landed, so a click that timed out did nothing: open the menu
  // again and click again, until the deadline.
  const deadline = Date.now() + 60_000;
  for (let attempt = 1; ; attempt++) {
    await untilShown(page, async () => (await titleAction(page, view, 'More Actions...')).click(), item, `"${label}" in the ${view} view's "More Actions..." menu`);
    if (await item.click({ timeout: 5_000 }).then(() => true, () => false)) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`"${label}" in the ${view} view's "More Actions..." menu closed before it could be clicked, ${attempt} times`);
    }
    await page.keyboard.press('Escape');
  }
}
