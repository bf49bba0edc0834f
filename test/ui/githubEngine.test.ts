/**
 * GitHub as the engine in the real workbench (issue 20), against the project's GitHub test server
 * as the stand-in (user setting ralph.github.standInUrl, no token): Publish Stories to GitHub…
 * from the Stories view's "…" menu, its dialog answered with the Publish button; then the
 * published stories' states on GitHub — a run in progress, a pull request open, a failed run — in
 * the Stories view's rows and the Task Graph's issue badges. The screenshot is the README's.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { GitHubEmulator } from '../support/githubEmulator';
import { eventually, graphFrame, openDemo, openRalphContainer, overflowAction, rowLabels, runCommand, setExpanded, shot, useWorkbench, widenSideBar, zoomOutUntil } from './workbench';

const FEATURE = 'ralph/task-priority';
let gh: GitHubEmulator;

describe('GitHub as the engine (UI, test server)', function () {
  this.timeout(180_000);
  const ui = useWorkbench(async () => {
    gh = await new GitHubEmulator({ owner: 'acme', repo: 'taskflow', lifetimeMs: 900_000 }).start();
    // What GitHub already runs: US-005 in progress, US-008's pull request open, US-010's run failed.
    gh.addWorkflow('ralph.yml');
    gh.setRunStatus(gh.addRun('ralph.yml', FEATURE, { story: 'US-005', branch: FEATURE }).id, 'in_progress');
    gh.setRunStatus(gh.addRun('ralph.yml', FEATURE, { story: 'US-010', branch: FEATURE }).id, 'completed', 'failure');
    gh.openPullRequest({ head: `${FEATURE}-US-008`, base: FEATURE, title: 'feat: US-008 - Notify assignees' });
    return openDemo({ 'ralph.github.repository': 'acme/taskflow', 'ralph.github.standInUrl': gh.apiUrl, 'ralph.github.writeIntervalMs': 0 });
  });

  after(async () => {
    await gh?.stop();
  });

  it('Publish Stories to GitHub… from the Stories view: the dialog, the issues, prd.json’s issue fields; then each story’s run and pull request in the rows and the graph', async () => {
    const { page } = ui;
    await openRalphContainer(page);
    await setExpanded(page, 'Runs', false);
    await setExpanded(page, 'Memory', false);
    await overflowAction(page, 'Stories', 'Publish Stories to GitHub…');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await dialog.textContent()) ?? '', /Publish the stories of demo to acme\/taskflow\?/);
    await dialog.locator('.monaco-button', { hasText: /^Publish$/ }).click();
    await eventually('12 story issues on the test server', async () => [...gh.issues.values()].filter((i) => i.labels.includes('ralph') && /ralph-workbench:story/.test(i.body ?? '')).length === 12, 60_000, async () => gh.issues.size);
    await eventually('prd.json to name each story’s issue', async () => (JSON.parse(readFileSync(path.join(ui.folder, 'prd.json'), 'utf8')) as { userStories: { issue?: unknown }[] }).userStories.every((s) => typeof s.issue === 'number'), 20_000);

    await eventually('the Stories view to show the states on GitHub', async () => {
      const r = await rowLabels(page);
      return r.some((x) => x.startsWith('US-005 · ready') && x.includes('☁ run in progress')) && r.some((x) => x.startsWith('US-008') && /☁ PR #\d+ open/.test(x)) && r.some((x) => x.startsWith('US-010') && x.includes('☁ run failure'));
    }, 30_000, () => rowLabels(page));

    await widenSideBar(page, 520);
    await setExpanded(page, 'Task Graph', true);
    await runCommand(page, 'Ralph: Open Task Graph in Editor');
    const f = await graphFrame(page, 'editor');
    await zoomOutUntil(f, '12 nodes in the drawing', async () => (await f.locator('g.node').count()) === 12);
    const badge = (id: string) => f.locator(`g.node[data-id="${id}"] text.artifacts tspan[dx]`);
    await eventually('the graph’s badges to mark the run, the pull request and the failure', async () => /▶$/.test((await badge('US-005').textContent()) ?? '') && /⇡$/.test((await badge('US-008').textContent()) ?? '') && /✗$/.test((await badge('US-010').textContent()) ?? ''), 30_000, async () => [await badge('US-005').textContent(), await badge('US-008').textContent(), await badge('US-010').textContent()]);
    assert.match((await f.locator('g.node[data-id="US-005"]').getAttribute('aria-label')) ?? '', /on GitHub: run in progress/);
    const side = await graphFrame(page, 'sidebar');
    await eventually('the side bar’s list to show the same marks', async () => /▶/.test((await side.locator('.row[data-id="US-005"] .artifacts').textContent()) ?? ''), 20_000);
    await shot(page, 'github-remote-states');
  });
});
