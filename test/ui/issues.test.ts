/**
 * The Issues view and a story's artifacts in the real workbench, against the local GitHub
 * emulator (127.0.0.1), the GitHub stand-in of the user setting ralph.github.standInUrl (application scope) (no
 * token); the repository comes from the ralph.github.repository setting.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { GitHubEmulator } from '../support/githubEmulator';
import { eventually, graphFrame, host, openRalphContainer, pane, rows, setExpanded, shot, storiesPane, runCommand, showRalph, storyRow, useWorkbench, widenSideBar } from './workbench';

const RESEARCH = 'thoughts/shared/research/2026-11-15-GH-0042-task-priorities.md';
const PLAN = 'thoughts/shared/plans/2026-11-16-GH-0042-task-priorities.md';
const blob = (p: string): string => `https://github.com/acme/taskflow/blob/main/${p}`;

let gh: GitHubEmulator;

async function issueRows(page: Page): Promise<string[]> {
  return rows(pane(page, 'Issues'));
}

describe('Issues view (UI, emulator)', function () {
  this.timeout(120_000);
  const ui = useWorkbench(async () => {
    gh = await new GitHubEmulator({ lifetimeMs: 600_000 }).start();
    gh.addIssue(42, 'Task priorities', ['ralph']);
    gh.addComment(42, `## Research Document\n\n${blob(RESEARCH)}\n\nKey findings: priorities live on the task row.`);
    gh.addComment(42, `## Plan Review\n\nVERDICT: APPROVED\n\nFull critique: ${blob('thoughts/shared/reviews/2026-11-16-GH-0042-critique.md')}`);
    gh.addIssue(43, 'Priority notifications');
    const h = await host();
    const folder = h.copyFixture('examples/demo');
    // US-006 belongs to issue #42 (an "issue" field); the demo itself stays unchanged.
    const prdFile = path.join(folder, 'prd.json');
    writeFileSync(prdFile, readFileSync(prdFile, 'utf8').replace('"id": "US-006",', '"id": "US-006",\n      "issue": 42,'));
    const wb = await h.openWorkbench({
      folder,
      viewport: { width: 1400, height: 900 },
      settings: { 'ralph.github.repository': 'acme/taskflow', 'ralph.github.standInUrl': gh.apiUrl },
    });
    return { wb, folder };
  });

  after(async () => {
    await gh?.stop();
  });

  it('shows issue #42 with its artifacts: linked, on disk (not linked), missing, and the review verdict', async () => {
    const { page } = ui;
    await openRalphContainer(page);
    await widenSideBar(page, 640);
    await setExpanded(page, 'Runs', false);
    await setExpanded(page, 'Memory', false);
    await setExpanded(page, 'Issues', true);
    await eventually('the Issues view to show #42 with a linked research document', async () => (await issueRows(page)).some((r) => r.startsWith('Research | linked')), 30_000, () => issueRows(page));
    const r = await issueRows(page);
    assert.ok(r.some((x) => /^#42 Task priorities \| open · next: implement · ralph$/.test(x)), JSON.stringify(r));
    assert.ok(r.includes('Plan | on disk, not linked · 2026-11-16-GH-0042-task-priorities.md'), JSON.stringify(r));
    assert.ok(r.includes('Plan review | linked · APPROVED · 2026-11-16-GH-0042-critique.md'), JSON.stringify(r));
    assert.ok(r.includes('Implementation | missing'), JSON.stringify(r));
    await shot(page, 'issues-view');
  });

  it('self-heal from the Plan node: confirm, one comment is posted, the node turns linked', async () => {
    const { page } = ui;
    const planRow = pane(page, 'Issues').locator('.monaco-list-row', { hasText: 'on disk, not linked' }).first();
    await planRow.hover();
    await planRow.locator('.action-label[aria-label^="Self-heal"]').click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 10_000 });
    const text = (await dialog.textContent()) ?? '';
    assert.match(text, /Post this comment to acme\/taskflow#42\?/);
    // The dialog shows the comment as it will be posted (issue 18 item 6).
    assert.ok(text.includes(`## Implementation Plan${blob(PLAN)}(Self-healed: artifact was found on disk but not linked via comment)`), text);
    await shot(page, 'issues-self-heal-confirm');
    await dialog.locator('.monaco-button', { hasText: 'Post Comment' }).click();
    await eventually('the Plan node to turn linked', async () => (await issueRows(page)).some((x) => x.startsWith('Plan | linked')), 20_000, () => issueRows(page));
    const posts = gh.requests.filter((q) => q.method === 'POST');
    assert.equal(posts.length, 1);
    assert.equal(gh.issues.get(42)!.comments.at(-1)!.body, `## Implementation Plan\n\n${blob(PLAN)}\n\n(Self-healed: artifact was found on disk but not linked via comment)`);
  });

  it('a story with an issue shows the issue artifacts as children in the Stories view', async () => {
    const { page } = ui;
    await setExpanded(page, 'Issues', false);
    const row = storyRow(page, 'US-006');
    await row.first().click();
    await page.keyboard.press('ArrowRight');
    await eventually('US-006 to show #42 artifacts', async () => (await rows(storiesPane(page))).some((x) => x.startsWith('#42 Research | linked')), 20_000, () => rows(storiesPane(page)));
    const r = await rows(storiesPane(page));
    assert.ok(r.some((x) => x.startsWith('#42 Plan | linked')), JSON.stringify(r));
    await shot(page, 'story-issue-artifacts');
  });

  it('the task graph draws the artifact badge of US-006 (issue #42) as text, with its accessible name', async () => {
    const { page } = ui;
    await showRalph(page);
    await runCommand(page, 'Ralph: Open Task Graph in Editor');
    const f = await graphFrame(page, 'editor');
    const badge = f.locator('g.node[data-id="US-006"] text.artifacts');
    // the badge's text is its second tspan (the first is the codicon glyph; the <title> is the tooltip)
    const words = badge.locator('tspan').nth(1);
    await eventually('the badge of US-006 to show #42 R P V', async () => (await words.textContent().catch(() => '')) === '#42 R P V', 20_000, () => badge.textContent().catch(() => 'no badge'));
    assert.equal(await badge.getAttribute('data-issue'), '42');
    assert.match((await badge.getAttribute('class')) ?? '', /^artifacts$/, 'no warning: every prerequisite is there');
    assert.equal(await f.locator('g.node[data-id="US-005"] text.artifacts').count(), 0, 'a story without an issue has no badge');
    const label = (await f.locator('g.node[data-id="US-006"]').getAttribute('aria-label')) ?? '';
    assert.match(label, /issue #42: research linked, plan (linked|on disk, not linked), review linked, implementation missing$/);
    await shot(page, 'task-graph-artifact-badge');
  });
});
