/**
 * Every view-title and inline action of the Stories and Runs views, clicked like a user does, in
 * the states users reach: nothing selected, a story selected, a run selected, and after a reload.
 * Each test puts the demo's git working copy back to its first commit, so no test depends on
 * another's runs. A click must have the effect a user notices and never show an error.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { eventually, openDemo, overflowAction, pane, rowLabels, runCommand as runCommandByTitle, setExpanded, shot, showRalph, storiesPane, storyRow, titleAction, untilShown, useWorkbench, widenSideBar, fakeAgentSettings } from './workbench';

const TITLES: Record<string, string> = {
  'US-005': 'Filter the task list by priority',
  'US-006': 'Sort tasks by priority',
  'US-007': 'Bulk-change priority of selected tasks',
};

/** Runs a title action that asks for the loop's length, again while the question does not show. */
async function startLoopFromTitle(page: Page, view: string, open: () => Promise<void>): Promise<void> {
  const question = page.locator('.quick-input-widget', { hasText: 'How many iterations at most?' });
  await untilShown(page, open, question, `Start Loop… in the ${view} view: "How many iterations at most?"`);
}

/**
 * The "[error]" lines the extension logged since the last call: every command error is logged
 * there ("[error] [ralph.runNext] …") when it is shown as a notification, and the log file does
 * not disappear the way a toast does.
 */
function logReader(dataDir: () => string): () => string[] {
  let seen = 0;
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name === 'Ralph Workbench.log' ? [path.join(dir, e.name)] : []));
  return () => {
    const lines = files(dataDir()).flatMap((f) => readFileSync(f, 'utf8').split('\n')).filter((l) => l.includes('[error]'));
    const fresh = lines.slice(seen);
    seen = lines.length;
    return fresh;
  };
}

let newErrors: () => string[] = () => [];

async function errorToasts(_page: Page): Promise<string[]> {
  return newErrors();
}


async function assertNoError(page: Page, after: string): Promise<void> {
  // An error from a command handler is logged a moment after the click: give it the chance.
  await page.waitForTimeout(500);
  const errors = await errorToasts(page);
  assert.deepEqual(errors, [], `an error notification appeared after ${after}`);
}

async function clearNotifications(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  const toasts = page.locator('.notifications-toasts .notification-toast');
  for (let i = 0; i < 10 && (await toasts.count()) > 0; i++) {
    await toasts.first().hover();
    const close = toasts.first().locator('.codicon-notifications-clear, .codicon-close').first();
    if ((await close.count()) === 0) {
      break;
    }
    await close.click().catch(() => undefined);
  }
}

function terminalTab(page: Page, storyId: string): Locator {
  return page.locator('.part.panel').getByText(`Ralph: ${storyId} — ${TITLES[storyId]}`, { exact: true }).first();
}

/** Waits for the agent's terminal of `storyId`, then for the iteration to end with the story passing. */
async function expectRun(page: Page, storyId: string, what: string): Promise<void> {
  await terminalTab(page, storyId).waitFor({ state: 'visible', timeout: 20_000 }).catch(async () => {
    throw new Error(`${what}: no terminal "Ralph: ${storyId} — …" appeared within 20 s; errors shown: ${JSON.stringify(await errorToasts(page))}`);
  });
  await eventually(`${storyId} to be shown as done after ${what}`, async () => /\bdone\b/.test((await storyRow(page, `${storyId}:`).first().getAttribute('aria-label')) ?? ''), 30_000, () => rowLabels(page));
  await eventually('the iteration to end (Run Next offered again)', async () => (await pane(page, 'Stories').locator('.pane-header .actions a.action-label[aria-label="Run Next Ready Story"]').count()) > 0, 30_000);
  await assertNoError(page, what);
  await clearNotifications(page);
}

describe('View-title and inline actions of the Stories and Runs views (demo workspace, fake agent)', function () {
  // Each test clicks through a dozen actions and waits for two agent runs (a reload too): on a
  // machine loaded far beyond its cores (load 15-19 on 2 cores) that took more than the tier's
  // 120 s, though every step was on its way. Each step keeps its own deadline.
  this.timeout(300_000);
  const ui = useWorkbench(() => openDemo(fakeAgentSettings(200)));
  let initialCommit = '';
  before(async () => {
    newErrors = logReader(() => ui.wb.server.dataDir);
    initialCommit = git('rev-parse', 'HEAD');
  });
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=Ralph Test', '-c', 'user.email=ralph-test@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: ui.folder, encoding: 'utf8' }).trim();

  /** Puts the demo back to its first commit on main, with no runs: US-006 is next again. */
  async function freshDemo(): Promise<void> {
    await ui.page.keyboard.press('Escape');
    git('checkout', '-q', '-f', 'main');
    git('reset', '-q', '--hard', initialCommit);
    git('clean', '-q', '-fdx');
    if (git('branch', '--list', 'ralph/task-priority') !== '') {
      git('branch', '-q', '-D', 'ralph/task-priority');
    }
    // No terminal left from an earlier test: a terminal named after a story must be this test's.
    if ((await ui.page.locator('.part.panel').getByText(/^Ralph: /).count()) > 0) {
      await runCommandByTitle(ui.page, 'Terminal: Kill All Terminals');
      await eventually('the agents\' terminals to be gone', async () => (await ui.page.locator('.part.panel').getByText(/^Ralph: US-/).count()) === 0);
    }
    await showRalph(ui.page);
    // These tests are about the Stories and Runs views: the Task Graph view (expanded by default)
    // would leave the Stories view too short to show the story a run has just finished.
    await setExpanded(ui.page, 'Task Graph', false);
    await eventually('US-006 to be the next story again', async () => /\bnext\b/.test((await storyRow(ui.page, 'US-006:').first().getAttribute('aria-label')) ?? ''), 15_000, () => rowLabels(ui.page));
    await clearNotifications(ui.page);
  }

  async function clickStoryRow(id: string): Promise<void> {
    const row = storyRow(ui.page, `${id}:`).first();
    await row.click();
    await eventually(`${id} to be selected`, async () => ((await row.getAttribute('aria-selected')) ?? '') === 'true');
  }

  /** The title actions that do not start an agent, each with the effect a user sees. */
  async function clickQuietStoriesActions(state: string): Promise<void> {
    await (await titleAction(ui.page, 'Stories', 'Refresh')).click();
    await assertNoError(ui.page, `Refresh (${state})`);
    assert.ok((await rowLabels(ui.page)).length >= 5, 'the stories are still listed after Refresh');

    await (await titleAction(ui.page, 'Stories', 'Open prd.json')).click();
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'prd.json' }).waitFor({ state: 'visible', timeout: 10_000 });
    await assertNoError(ui.page, `Open prd.json (${state})`);

    await overflowAction(ui.page, 'Stories', 'Preview Prompt');
    await ui.page.locator('.editor-instance .view-lines', { hasText: 'prd.json' }).first().waitFor({ state: 'visible', timeout: 10_000 });
    await assertNoError(ui.page, `Preview Prompt (${state})`);

    await runCommandByTitle(ui.page, 'View: Close All Editors');
    await overflowAction(ui.page, 'Stories', 'Create prd.json');
    // prd.json exists: it is opened (and a message says so).
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'prd.json' }).waitFor({ state: 'visible', timeout: 10_000 });
    await assertNoError(ui.page, `Create prd.json (${state})`);
    await clearNotifications(ui.page);

    await startLoopFromTitle(ui.page, 'Stories', () => overflowAction(ui.page, 'Stories', 'Start Loop…'));
    await ui.page.keyboard.press('Escape');
    await assertNoError(ui.page, `Start Loop… in the Stories title (${state})`);
  }

  it('nothing selected: every Stories and Runs title action works', async () => {
    await freshDemo();
    await widenSideBar(ui.page, 560);
    await clickQuietStoriesActions('nothing selected');

    await startLoopFromTitle(ui.page, 'Runs', async () => (await titleAction(ui.page, 'Runs', 'Start Loop…')).click());
    await ui.page.keyboard.press('Escape');
    await assertNoError(ui.page, 'Start Loop… in the Runs title');

    await (await titleAction(ui.page, 'Stories', 'Run Next Ready Story')).click();
    await expectRun(ui.page, 'US-006', 'Run Next Ready Story in the Stories title');
    await (await titleAction(ui.page, 'Runs', 'Run Next Ready Story')).click();
    await expectRun(ui.page, 'US-005', 'Run Next Ready Story in the Runs title');

    await (await titleAction(ui.page, 'Stories', 'Show Next Ready Story')).click();
    const selected = storiesPane(ui.page).locator('.monaco-list-row.selected');
    await eventually('the next story to be selected', async () => ((await selected.first().getAttribute('aria-label')) ?? '').startsWith('US-007:'), 10_000);
    await assertNoError(ui.page, 'Show Next Ready Story');
    await shot(ui.page, '40-title-actions-nothing-selected');
  });

  it('a story selected: the title actions and the inline actions of story rows work', async () => {
    await freshDemo();
    await clickStoryRow('US-007');
    await clickQuietStoriesActions('a story selected');
    await clickStoryRow('US-007');
    // Selected, with its children folded (←, as a user would): open, its criteria, dependencies
    // and its issue's documents would push the finished story below the rows the view shows.
    const us007 = storyRow(ui.page, 'US-007:').first();
    if ((await us007.getAttribute('aria-expanded')) === 'true') {
      await ui.page.keyboard.press('ArrowLeft');
      await eventually('US-007 to be folded', async () => (await us007.getAttribute('aria-expanded')) === 'false');
    }

    await (await titleAction(ui.page, 'Stories', 'Run Next Ready Story')).click();
    await expectRun(ui.page, 'US-006', 'Run Next Ready Story with US-007 selected');

    // Inline: Mark as Passing / Mark as Not Passing / Run This Story on US-005.
    const row = storyRow(ui.page, 'US-005:').first();
    await row.hover();
    await row.locator('.actions a.action-label[aria-label="Mark as Passing"]').click();
    await eventually('US-005 to be marked done', async () => /\bdone\b/.test((await row.getAttribute('aria-label')) ?? ''), 10_000);
    await assertNoError(ui.page, 'Mark as Passing');
    await row.hover();
    await row.locator('.actions a.action-label[aria-label="Mark as Not Passing"]').click();
    await eventually('US-005 to be not passing again', async () => !/\bdone\b/.test((await row.getAttribute('aria-label')) ?? ''), 10_000);
    await assertNoError(ui.page, 'Mark as Not Passing');
    await row.hover();
    await row.locator('.actions a.action-label[aria-label="Run This Story"]').click();
    await expectRun(ui.page, 'US-005', 'Run This Story on US-005');
    await shot(ui.page, '41-actions-story-selected');
  });

  it('a run selected: the Runs and Stories title actions work', async () => {
    await freshDemo();
    // A run of its own first (from the command palette), so the Runs view has a row to select.
    await runCommandByTitle(ui.page, 'Ralph: Run Next Ready Story');
    await expectRun(ui.page, 'US-006', 'Ralph: Run Next Ready Story from the command palette');
    const runRow = pane(ui.page, 'Runs').locator('.monaco-list-row[aria-label^="US-006: Sort tasks by priority"]').first();
    await runRow.waitFor({ state: 'visible', timeout: 15_000 });
    await runRow.click();
    await eventually('the run row to be selected', async () => ((await runRow.getAttribute('aria-selected')) ?? '') === 'true');
    await assertNoError(ui.page, 'selecting a run');

    await startLoopFromTitle(ui.page, 'Runs', async () => (await titleAction(ui.page, 'Runs', 'Start Loop…')).click());
    await ui.page.keyboard.press('Escape');
    await assertNoError(ui.page, 'Start Loop… with a run selected');
    await runRow.click();

    await (await titleAction(ui.page, 'Runs', 'Run Next Ready Story')).click();
    await expectRun(ui.page, 'US-005', 'Run Next Ready Story in the Runs title with a run selected');
    await shot(ui.page, '42-actions-run-selected');
  });

  it('after a reload: the title actions work with and without a selection', async () => {
    await freshDemo();
    await ui.page.reload();
    await ui.page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    await showRalph(ui.page);
    await (await titleAction(ui.page, 'Stories', 'Run Next Ready Story')).click();
    await expectRun(ui.page, 'US-006', 'Run Next Ready Story after a reload');
    await clickStoryRow('US-007');
    await (await titleAction(ui.page, 'Stories', 'Run Next Ready Story')).click();
    await expectRun(ui.page, 'US-005', 'Run Next Ready Story after a reload with a story selected');
    await shot(ui.page, '43-actions-after-reload');
  });
});
