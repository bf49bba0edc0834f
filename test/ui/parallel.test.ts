/**
 * A parallel wave in the real workbench (issue 19): the user clicks "Run Wave" in the Stories
 * view's title menu on the demo, four ready stories run (three agents at once, each in its own git
 * worktree and terminal), two merge, one conflicts and one fails its check. The test looks at
 * what the user sees: the running rows and terminals while the agents work, then the Needs You
 * node with its rows, the badge on the Ralph icon, one notification per item, Open Conflict and
 * Show Terminal on the rows, Skip Story; and prd.json and the feature branch's log.
 *
 * The fake agent (test/fixtures/fake-agent.mjs) gets a mode per story (FAKE_AGENT_PLAN) and waits
 * at a gate file (FAKE_AGENT_GATE) after its first lines, so the three agents are seen at work
 * together however slow the machine is; the test then opens the gate.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { eventually, openDemo, openRalphContainer, overflowAction, repoRoot, rowLabels, runCommand, setExpanded, shot, storiesPane, storyRow, untilShown, useWorkbench, widenSideBar } from './workbench';

const FEATURE = 'ralph/task-priority';
const WAVE = ['US-005', 'US-006', 'US-008', 'US-010'];
const PLAN = { 'US-005': 'pass', 'US-006': 'conflict', 'US-008': 'conflict', 'US-010': 'break-check' };
const CHECK = `node -e "process.exit(require('fs').existsSync('CHECK_FAILS')?1:0)"`;

const gateDir = mkdtempSync(path.join(tmpdir(), 'ralph-gate-'));
const gate = path.join(gateDir, 'go');

function parallelSettings(): Record<string, unknown> {
  const agent = path.join(repoRoot, 'test', 'fixtures', 'fake-agent.mjs');
  return {
    'ralph.agent.preset': 'custom',
    'ralph.agent.command': `FAKE_AGENT_PLAN='${JSON.stringify(PLAN)}' FAKE_AGENT_GATE="${gate}" node "${agent}" \${promptFile}`,
    'ralph.parallel.checkCommand': CHECK,
    // US-006 and US-008 are predicted to touch different files or the same ones depending on the
    // demo's Pin: the test needs them at work together, so that the second to merge conflicts.
    'ralph.parallel.allowOverlap': true,
  };
}

/** A row of the Needs You node, by the start of its label ("US-010 — "). */
function needsYouRow(page: Page, storyId: string): Locator {
  return storiesPane(page).locator(`.monaco-list-row[aria-label^="${storyId} — "]`).first();
}

async function ariaLabel(l: Locator): Promise<string> {
  return (await l.getAttribute('aria-label').catch(() => null)) ?? '';
}

/** The number on the Ralph icon of the activity bar ('' when it has no badge). */
async function ralphBadge(page: Page): Promise<string> {
  const badge = page.locator('.activitybar .action-item:has(a.action-label[aria-label^="Ralph"]) .badge .badge-content');
  return (await badge.count()) > 0 && (await badge.first().isVisible()) ? ((await badge.first().textContent()) ?? '').trim() : '';
}

describe('A parallel wave from the VS Code UI (demo workspace, fake agents in git worktrees)', function () {
  // Four agent runs in worktrees, merges and a check, on a machine that may be busy.
  this.timeout(300_000);
  const ui = useWorkbench(() => openDemo(parallelSettings()));
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: ui.folder, encoding: 'utf8' }).trim();

  after(() => {
    writeFileSync(gate, 'go\n'); // no agent waits forever if the test failed before opening the gate
    const worktrees = path.join(path.dirname(ui.folder), `.${path.basename(ui.folder)}-ralph-worktrees`);
    rmSync(worktrees, { recursive: true, force: true });
    rmSync(gateDir, { recursive: true, force: true });
  });

  it('Run Wave in the Stories title runs the four ready stories, three at once; two merge, one conflicts, one fails its check: Needs You rows, the badge, a notification each', async () => {
    const mainHead = git('rev-parse', 'main');
    await openRalphContainer(ui.page);
    await setExpanded(ui.page, 'Task Graph', false);
    await widenSideBar(ui.page, 560);
    for (const id of WAVE) {
      assert.match(await ariaLabel(storyRow(ui.page, `${id}:`).first()), /\b(next|ready)\b/, `${id} is ready before the wave`);
    }

    await overflowAction(ui.page, 'Stories', 'Run Wave');

    // Three agents at work together (ralph.parallel.maxAgents is 3), each in its own terminal.
    const running = async (): Promise<string[]> => {
      const out: string[] = [];
      for (const id of WAVE) {
        if (/\brunning\b/.test(await ariaLabel(storyRow(ui.page, `${id}:`).first()))) {
          out.push(id);
        }
      }
      return out;
    };
    await eventually('three stories to show "running" at once', async () => (await running()).length === 3, 90_000, async () => ({ running: await running(), rows: await rowLabels(ui.page) }));
    assert.deepEqual(await running(), ['US-005', 'US-006', 'US-008'], 'the first three of the wave by priority; US-010 waits for a free slot');
    const panel = ui.page.locator('.part.panel');
    for (const [id, title] of [
      ['US-005', 'Filter the task list by priority'],
      ['US-006', 'Sort tasks by priority'],
      ['US-008', 'Notify assignees when a priority changes'],
    ]) {
      await panel.getByText(`Ralph: ${id} — ${title}`, { exact: true }).first().waitFor({ state: 'visible', timeout: 30_000 });
    }
    const worktrees = git('worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('branch refs/heads/'));
    assert.deepEqual(worktrees.map((l) => l.slice('branch refs/heads/'.length)).sort(), [FEATURE, `${FEATURE}-US-005`, `${FEATURE}-US-006`, `${FEATURE}-US-008`].sort());
    await ui.page.mouse.move(900, 300);
    await shot(ui.page, '50-parallel-wave-running');

    writeFileSync(gate, 'go\n');

    // The wave ends with two stories that need the user.
    const header = storiesPane(ui.page).locator('.monaco-list-row[aria-label^="Needs You ("]').first();
    await eventually('the Needs You node with two items', async () => (await ariaLabel(header)).startsWith('Needs You (2)'), 180_000, () => rowLabels(ui.page));
    const conflictRow = storiesPane(ui.page).locator('.monaco-list-row[aria-label*=" — merge conflict in shared.txt"]').first();
    await conflictRow.waitFor({ state: 'visible', timeout: 10_000 });
    const conflicted = (await ariaLabel(conflictRow)).slice(0, 'US-00x'.length);
    assert.ok(conflicted === 'US-006' || conflicted === 'US-008', `the conflict is US-006's or US-008's: ${await ariaLabel(conflictRow)}`);
    const winner = conflicted === 'US-006' ? 'US-008' : 'US-006';
    assert.match(await ariaLabel(needsYouRow(ui.page, 'US-010')), /^US-010 — the check failed after its merge\. /);
    await eventually('the badge "2" on the Ralph icon', async () => (await ralphBadge(ui.page)) === '2', 10_000, () => ralphBadge(ui.page));
    // One notification per item, whatever the number of refreshes, its main action as its button:
    // read in the notification center (a toast hides after a while, as it should).
    const center = ui.page.locator('.notifications-center');
    await untilShown(ui.page, () => runCommand(ui.page, 'Notifications: Show Notifications'), center, 'the notification center');
    const listed = async (): Promise<string[]> => center.locator('.notification-list-item').allInnerTexts();
    await eventually('a notification for each item', async () => {
      const t = await listed();
      return t.some((x) => x.includes(conflicted) && /Open Conflict/.test(x)) && t.some((x) => x.includes('US-010') && /Show Terminal/.test(x));
    }, 20_000, listed);
    const notes = await listed();
    assert.equal(notes.filter((x) => x.includes(conflicted) && /Open Conflict/.test(x)).length, 1, JSON.stringify(notes));
    assert.equal(notes.filter((x) => x.includes('US-010') && /Show Terminal/.test(x)).length, 1, JSON.stringify(notes));
    await shot(ui.page, '51-parallel-needs-you');

    // prd.json and git: two stories merged into the feature branch (checked out from main), main untouched.
    const prd = JSON.parse(readFileSync(path.join(ui.folder, 'prd.json'), 'utf8')) as { userStories: { id: string; passes: boolean }[] };
    const passes = Object.fromEntries(prd.userStories.filter((s) => WAVE.includes(s.id)).map((s) => [s.id, s.passes]));
    assert.deepEqual(passes, { 'US-005': true, [winner]: true, [conflicted]: false, 'US-010': false });
    assert.equal(git('rev-parse', '--abbrev-ref', 'HEAD'), FEATURE);
    assert.equal(git('rev-parse', 'main'), mainHead, 'nothing merged into main');
    const log = git('log', '--format=%s', FEATURE).split('\n');
    assert.ok(log.some((l) => l.startsWith('feat: US-005 ')) && log.some((l) => l.startsWith(`feat: ${winner} `)), log.join('\n'));
    assert.ok(!log.some((l) => l.startsWith(`feat: ${conflicted} `) || l.startsWith('feat: US-010 ')), log.join('\n'));
    assert.ok(!existsSync(path.join(ui.folder, 'CHECK_FAILS')), 'the failed check\'s merge was undone');
    assert.equal(git('status', '--porcelain'), '', 'the wave leaves the main working tree clean');

    // Open Conflict on the row: the conflicted file opens with git's markers, in the story's worktree.
    await conflictRow.hover();
    await conflictRow.locator('.actions a.action-label[aria-label="Open Conflict"]').click();
    const editor = ui.page.locator('.tabs-container .tab.active', { hasText: 'shared.txt' });
    await editor.waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.locator('.editor-instance .view-lines', { hasText: '<<<<<<<' }).first().waitFor({ state: 'visible', timeout: 10_000 });

    // Show Terminal on US-010's row: its agent's terminal is the one shown.
    const us010 = needsYouRow(ui.page, 'US-010');
    await us010.hover();
    await us010.locator('.actions a.action-label[aria-label="Show Terminal"]').click();
    await eventually('US-010\'s terminal to be the active one', async () => (await panel.locator('.terminal-tabs-entry.is-active, .monaco-list-row.selected').allInnerTexts()).some((t) => t.includes('US-010')), 10_000, () => panel.locator('.terminal-tabs-entry, .monaco-list-row').allInnerTexts());

    // Skip Story (the row's context menu): one item left, the badge says so.
    // A busy workbench may re-render the menu while it opens (the item detaches): open it again.
    const skip = ui.page.locator('.context-view .monaco-menu .action-item', { hasText: 'Skip Story' }).first();
    // A click that lands as the menu re-renders does nothing: until the skip shows, the menu is opened and clicked again
    // (skipping US-010 twice is the same skip), and a menu left open is closed.
    await eventually('Skip Story on US-010 to take effect: Needs You (1)', async () => {
      if ((await ariaLabel(header)).startsWith('Needs You (1)')) {
        return true;
      }
      await untilShown(ui.page, () => us010.click({ button: 'right' }), skip, 'the row\'s context menu with Skip Story');
      const clicked = await skip.click({ timeout: 5_000 }).then(() => true, () => false);
      const skipped = clicked && (await eventually('the skip', async () => (await ariaLabel(header)).startsWith('Needs You (1)'), 5_000).then(() => true, () => false));
      if (!skipped && (await ui.page.locator('.context-view .monaco-menu').isVisible())) {
        await ui.page.keyboard.press('Escape');
      }
      return skipped;
    }, 60_000, () => rowLabels(ui.page));
    await eventually('the badge "1"', async () => (await ralphBadge(ui.page)) === '1', 10_000, () => ralphBadge(ui.page));
  });
});
