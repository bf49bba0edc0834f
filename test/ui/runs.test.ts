import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { eventually, openDemo, openRalphContainer, rowLabels, shot, storiesPane, useWorkbench, widenSideBar, fakeAgentSettings } from './workbench';

/** The pane of the Runs view. */
function runsPane(page: Page): Locator {
  return page.locator('.pane').filter({ has: page.locator('.pane-header[aria-label^="Runs"]') });
}

function headerAction(page: Page, label: string): Locator {
  return storiesPane(page).locator(`.pane-header a.action-label[aria-label="${label}"]`);
}

const TERMINAL_NAME = 'Ralph: US-006 — Sort tasks by priority';

describe('Running an agent from the VS Code UI (demo workspace, fake agent)', function () {
  // A git working copy of the demo (committed on main) and the fake agent as the custom agent;
  // the delay keeps the iteration running long enough to see it in the workbench.
  const ui = useWorkbench(() => openDemo(fakeAgentSettings(2500)));

  before(() => {
    assert.equal(execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: ui.folder, encoding: 'utf8' }).trim(), 'main', 'the demo copy is a git repository on main');
  });

  it('clicking "Run Next Ready Story" in the Stories view title runs US-006 in a terminal named after it; the Runs view then shows the run, and prd.json, runs.jsonl and git agree', async () => {
    await openRalphContainer(ui.page);
    await widenSideBar(ui.page, 560);
    assert.ok(((await rowLabels(ui.page))[0] ?? '').startsWith('US-006 · next · Sort tasks by priority'), 'US-006 is next');

    await storiesPane(ui.page).locator('.pane-header').hover();
    const run = headerAction(ui.page, 'Run Next Ready Story');
    await run.waitFor({ state: 'visible', timeout: 10_000 });
    const panel = ui.page.locator('.part.panel');
    const terminalTab = panel.getByText(TERMINAL_NAME, { exact: true });
    const t0 = Date.now();
    await run.click();
    await terminalTab.first().waitFor({ state: 'visible', timeout: 20_000 }).catch(() => {
      throw new Error(`no terminal named "${TERMINAL_NAME}" appeared in the panel within 20 s`);
    });
    const clickToTerminal = Date.now() - t0;
    console.log(`      click → terminal tab "${TERMINAL_NAME}" visible: ${clickToTerminal} ms`);

    // While the agent works: the status bar names the story and the iteration, the title offers stopping.
    const status = ui.page.locator('.statusbar-item', { hasText: 'Ralph: US-006 · 1/1' });
    await status.first().waitFor({ state: 'visible', timeout: 10_000 });
    assert.ok((await headerAction(ui.page, 'Stop Now').count()) === 1, 'the Stories view title offers "Stop Now" while the agent runs');
    assert.equal(await headerAction(ui.page, 'Run Next Ready Story').count(), 0, 'and no second run');
    // Let the agent print its first lines (it reads the prompt, then waits 2.5 s), then capture.
    await eventually('the status bar to show at least 1 s elapsed', async () => /· [1-9]\d*s\b/.test(await status.first().innerText()), 10_000);
    await ui.page.mouse.move(900, 300);
    await shot(ui.page, '10-run-next-terminal');

    // When it has finished (one test, so nothing depends on an earlier test's run):
    // the Runs view shows the run; prd.json, runs.jsonl and git agree.
    const runRow = runsPane(ui.page).locator('.monaco-list-row[aria-label^="US-006: Sort tasks by priority"]');
    await runRow.first().waitFor({ state: 'visible', timeout: 30_000 }).catch(() => {
      throw new Error('the Runs view did not list the US-006 run within 30 s');
    });
    const label = (await runRow.first().getAttribute('aria-label')) ?? '';
    assert.match(label, /story passes/, `run row: ${label}`);
    const rows = await runsPane(ui.page).locator('.monaco-list-row .label-name, .monaco-list-row .monaco-highlighted-label').allInnerTexts();
    assert.ok(rows.some((t) => /^1 iteration · 1 story completed · 100% success/.test(t)), `Runs rows: ${JSON.stringify(rows)}`);

    // The run is over: the Stories title offers running again, US-005 is next.
    await eventually('the Stories view to show US-005 as next', async () => ((await rowLabels(ui.page))[0] ?? '').startsWith('US-005 · '), 15_000, () => rowLabels(ui.page));
    await eventually('the status bar to offer the next story', async () => (await ui.page.locator('.statusbar-item', { hasText: 'Ralph: US-005' }).count()) > 0, 10_000);

    const runs = readFileSync(path.join(ui.folder, '.ralph', 'runs.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(runs.length, 1);
    assert.equal(runs[0].storyId, 'US-006');
    assert.equal(runs[0].outcome, 'passed');
    assert.equal(runs[0].exitCode, 0);
    assert.ok(existsSync(path.join(ui.folder, String(runs[0].promptFile))));
    const prd = JSON.parse(readFileSync(path.join(ui.folder, 'prd.json'), 'utf8')) as { userStories: { id: string; passes: boolean }[] };
    assert.equal(prd.userStories.find((s) => s.id === 'US-006')?.passes, true);
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: ui.folder, encoding: 'utf8' }).trim();
    assert.equal(git('rev-parse', '--abbrev-ref', 'HEAD'), 'ralph/task-priority');
    assert.equal(git('log', '-1', '--format=%s'), 'feat: US-006 - Sort tasks by priority');

    // The terminal stays open with the agent's output.
    await ui.page.locator('.part.panel').getByText(TERMINAL_NAME, { exact: true }).first().waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.mouse.move(900, 300);
    await shot(ui.page, '11-runs-view');
  });
});
