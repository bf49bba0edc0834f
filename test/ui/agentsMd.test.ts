/**
 * AGENTS.md snippets are offered as you type their prefix (issue 18 item 11): Markdown has quick
 * suggestions off, so without help they show only on Ctrl+Space.
 */
import * as assert from 'node:assert/strict';
import { quickOpen, shot, useWorkbench } from './workbench';

describe('AGENTS.md snippets', function () {
  const ui = useWorkbench();

  it('typing "agents" on a new line of AGENTS.md offers the skeleton snippet, without Ctrl+Space', async () => {
    const page = ui.page;
    await quickOpen(page, 'AGENTS.md', 'AGENTS.md');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('agents', { delay: 60 });
    const suggestion = page.locator('.suggest-widget .monaco-list-row', { hasText: 'AGENTS.md skeleton' });
    await suggestion.first().waitFor({ state: 'visible', timeout: 20_000 });
    await shot(page, 'agents-md-snippet');
    // Offered, not inserted: the line still holds what was typed until the user accepts.
    await page.keyboard.press('Escape');
    await suggestion.first().waitFor({ state: 'hidden', timeout: 10_000 });
    assert.ok((await page.locator('.editor-instance .view-line', { hasText: /^agents$/ }).count()) > 0, 'the typed word stays as typed');
  });
});
