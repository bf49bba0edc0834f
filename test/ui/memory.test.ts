import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { eventually, openRalphContainer, pane, rows, runCommand, screenshotDir, setExpanded, shot, storiesPane, storyRow, useWorkbench, widenSideBar } from './workbench';

/** Opens the Ralph container unless its views are showing already (each test can run alone). */
async function ensureRalphOpen(page: Page): Promise<void> {
  if (!(await pane(page, 'Memory').locator('.pane-header').first().isVisible())) {
    await openRalphContainer(page);
    await widenSideBar(page, 640);
  }
}

/**
 * The notification whose message contains `text`, shown in the notification center (the workbench
 * shows no toasts when the smoke-test driver is enabled, which the tests need).
 */
async function notification(page: Page, text: string): Promise<Locator> {
  const item = page.locator('.notifications-center .notification-list-item', { hasText: text });
  if (!(await item.first().isVisible())) {
    await runCommand(page, 'Notifications: Show Notifications');
  }
  await item.first().waitFor({ state: 'visible', timeout: 10_000 });
  return item.first();
}

/** The demo's progress.txt followed by `n` generated entries, far over the 400-line threshold. */
function longProgress(demo: string, n = 45): string {
  const ids = ['US-005', 'US-006', 'US-007', 'US-008', 'US-009', 'US-010', 'US-011', 'US-012'];
  let out = demo;
  for (let i = 0; i < n; i++) {
    const id = ids[i % ids.length];
    const minutes = (i % 20) * 3;
    const time = `${String(9 + Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    out +=
      `\n## 2026-11-${19 + Math.floor(i / 20)} ${time} - ${id}\n` +
      `Thread: https://ampcode.com/threads/T-generated-${i}\n` +
      `- Iteration ${i}: worked on ${id}\n` +
      `- Ran \`npm run typecheck && npm test\`\n` +
      `- Files changed: src/generated/file${i}.ts\n` +
      `- **Learnings for future iterations:**\n` +
      `  - Generated learning ${i}.a for ${id}\n` +
      `  - Generated learning ${i}.b for ${id}\n` +
      `---\n`;
  }
  return out;
}

describe('Memory view, learnings under stories and the compaction preview in the VS Code UI (demo workspace)', function () {
  const ui = useWorkbench();

  it('shows the Memory view: Codebase Patterns, Learnings, AGENTS.md files and the Pin', async () => {
    await openRalphContainer(ui.page);
    await widenSideBar(ui.page, 640);
    // Give the Memory view the whole side bar.
    await setExpanded(ui.page, 'Stories', false);
    await setExpanded(ui.page, 'Runs', false);
    await setExpanded(ui.page, 'Task Graph', false);
    await setExpanded(ui.page, 'Memory', true);
    const memory = pane(ui.page, 'Memory');
    await eventually('the four sections of the Memory view', async () => {
      const r = await rows(memory);
      return ['Codebase Patterns | 6', 'Learnings | 17 in 4 stories', 'AGENTS.md | 3 files', 'The Pin | 7 modules'].every((s) => r.includes(s));
    }, 30_000, () => rows(memory));
    const r = await rows(memory);
    // Sections are expanded: the patterns, the stories with learnings (newest first), the files, the modules.
    const at = (label: string) => r.findIndex((x) => x === label || x.startsWith(`${label} | `));
    assert.ok(at('Codebase Patterns') < at('Learnings') && at('Learnings') < at('AGENTS.md') && at('AGENTS.md') < at('The Pin'), JSON.stringify(r));
    const learningGroups = r.slice(at('Learnings') + 1, at('AGENTS.md')).map((x) => x.split(' | ')[0]);
    assert.deepEqual(learningGroups, ['US-004', 'US-003', 'US-002', 'US-001']);
    assert.equal(at('Codebase Patterns') + 7, at('Learnings'), `6 patterns under Codebase Patterns: ${JSON.stringify(r)}`);
    for (const file of ['AGENTS.md', 'src/api/AGENTS.md', 'src/web/components/AGENTS.md']) {
      assert.ok(r.slice(at('AGENTS.md') + 1, at('The Pin')).includes(file), `${file} in ${JSON.stringify(r)}`);
    }
    assert.ok(r.some((x) => x.startsWith('Priority Model | priority, priorities')), JSON.stringify(r));

    // Expand the newest story's learnings for the picture.
    const us004 = memory.locator('.monaco-list-row[aria-level="2"]', { has: ui.page.locator('.label-name', { hasText: /^US-004$/ }) });
    await us004.locator('.monaco-tl-twistie').click();
    await eventually('the learnings of US-004', async () => (await rows(memory)).some((x) => x.startsWith('Invalidate by key prefix')), 10_000, () => rows(memory));
    await ui.page.mouse.move(900, 500);
    await ui.page.waitForTimeout(300);
    await shot(ui.page, '20-memory-view');

    // Selecting a pattern opens progress.txt at its line.
    const demo = readFileSync(path.join(ui.folder, 'progress.txt'), 'utf8').split('\n');
    const tailwindLine = demo.findIndex((l) => l.startsWith('- Tailwind classes must be complete')) + 1;
    await memory.locator('.monaco-list-row', { has: ui.page.locator('.label-name', { hasText: /^Tailwind classes must be complete/ }) }).click();
    const tab = ui.page.locator('.tabs-container .tab', { hasText: 'progress.txt' });
    await tab.waitFor({ state: 'visible', timeout: 10_000 });
    const cursor = ui.page.locator('.statusbar-item[id="status.editor.selection"]');
    await eventually(`the cursor on line ${tailwindLine} of progress.txt`, async () => new RegExp(`Ln ${tailwindLine},`).test(await cursor.innerText()), 10_000, () => cursor.innerText());
    await ui.page.mouse.move(900, 700);
    await ui.page.waitForTimeout(300);
    await shot(ui.page, '20-memory-view-pattern-opened');
    // For the README (docs/images/memory-view.png, kept under 300 KB): the view and the opened file.
    await ui.page.screenshot({ path: path.join(screenshotDir, '20-memory-view-readme.png'), clip: { x: 0, y: 0, width: 1160, height: 860 } });
    await runCommand(ui.page, 'View: Close All Editors');
  });

  it('a story in the Stories view shows its learnings as children', async () => {
    await ensureRalphOpen(ui.page);
    await setExpanded(ui.page, 'Memory', false);
    await setExpanded(ui.page, 'Task Graph', false);
    await setExpanded(ui.page, 'Stories', true);
    const us002 = storyRow(ui.page, 'US-002:');
    await us002.waitFor({ state: 'visible', timeout: 10_000 });
    await us002.scrollIntoViewIfNeeded();
    if ((await us002.getAttribute('aria-expanded')) !== 'true') {
      await us002.locator('.monaco-tl-twistie').click();
    }
    await eventually('US-002 to expand', async () => (await us002.getAttribute('aria-expanded')) === 'true');
    const learnings = storiesPane(ui.page).locator('.monaco-list-row[aria-level="2"]', { has: ui.page.locator('.label-description', { hasText: /^learning · 2026-11-18 14:37$/ }) });
    await eventually('the four learnings of US-002', async () => (await learnings.count()) === 4, 10_000, () => rows(storiesPane(ui.page)));
    const texts = await learnings.locator('.label-name').allInnerTexts();
    assert.ok(texts[0].startsWith('`z.enum(PRIORITIES)` needs'), JSON.stringify(texts));
    await learnings.last().scrollIntoViewIfNeeded();
    await ui.page.mouse.move(900, 500);
    await ui.page.waitForTimeout(300);
    await shot(ui.page, '21-story-learnings');
  });

  it('"Search the Pin" ranks modules for a word and opens the chosen file', async () => {
    await ensureRalphOpen(ui.page);
    await runCommand(ui.page, 'Ralph: Search the Pin', { opensQuickPick: true });
    const input = ui.page.locator('.quick-input-widget input');
    await input.fill('urgency');
    const rowsOf = () => ui.page.locator('.quick-input-widget .monaco-list-row').evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()));
    // VS Code's own filter answers first; then the extension's ranked matches replace the items.
    await eventually('"Priority Model" ranked first for "urgency"', async () => /^Priority Model\s*matches urgency/.test((await rowsOf())[0] ?? ''), 10_000, rowsOf);
    await shot(ui.page, '23-search-the-pin');
    await input.press('Enter');
    // Priority Model lists four files and a spec: pick the spec.
    await eventually('the files of Priority Model', async () => (await rowsOf()).some((r) => r.startsWith('specs/priority-model.md')), 10_000, rowsOf);
    await input.fill('specs/priority-model.md');
    await input.press('Enter');
    await ui.page.locator('.tabs-container .tab', { hasText: 'priority-model.md' }).waitFor({ state: 'visible', timeout: 10_000 });
    await runCommand(ui.page, 'View: Close All Editors');
  });

  it('"Ralph: Compact progress.txt…" previews the compaction in a diff editor; Cancel leaves the file alone', async () => {
    const file = path.join(ui.folder, 'progress.txt');
    const long = longProgress(readFileSync(file, 'utf8'));
    writeFileSync(file, long);
    await ensureRalphOpen(ui.page);
    await setExpanded(ui.page, 'Stories', false);
    await setExpanded(ui.page, 'Task Graph', false);
    await setExpanded(ui.page, 'Memory', true);
    const memory = pane(ui.page, 'Memory');
    await eventually('the Memory view to read the long progress.txt', async () => (await rows(memory)).some((x) => /^Learnings \| 107 in \d+ stories$/.test(x)), 15_000, () => rows(memory));

    await runCommand(ui.page, 'Ralph: Compact progress.txt…');
    const diff = ui.page.locator('.editor-instance .monaco-diff-editor');
    await diff.first().waitFor({ state: 'visible', timeout: 15_000 });
    const tab = ui.page.locator('.tabs-container .tab', { hasText: 'compacted (preview)' });
    await tab.waitFor({ state: 'visible', timeout: 10_000 });
    // The question is a notification with Apply and Cancel. The workbench shows no toasts when the
    // smoke-test driver is enabled (the tests need it), so open the notification center.
    const toast = await notification(ui.page, 'Compact progress.txt?');
    const message = await toast.locator('.notification-list-item-message').innerText();
    assert.match(message, /Compact progress\.txt\? \d+ → \d+ lines; 30 older entries summarised per story/);
    // The right-hand side shows the Compacted history.
    await eventually('the proposed side to show "Compacted history"', async () => (await diff.first().innerText()).replace(/\u00a0/g, ' ').includes('## Compacted history'), 10_000);
    await ui.page.mouse.move(900, 500);
    await ui.page.waitForTimeout(500);
    await shot(ui.page, '22-compaction-preview');

    await toast.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await tab.waitFor({ state: 'hidden', timeout: 10_000 });
    await toast.waitFor({ state: 'hidden', timeout: 10_000 });
    await ui.page.keyboard.press('Escape');
    assert.equal(readFileSync(file, 'utf8'), long, 'Cancel leaves progress.txt unchanged');
  });
});
