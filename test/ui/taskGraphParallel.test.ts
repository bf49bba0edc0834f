/**
 * The Task Graph while a parallel run's agents work (issue 19): Run Wave with two agents at once
 * (the fake agent, waiting until stopped, each in its own git worktree and terminal); the editor
 * drawing and the side-bar list show one mark per running story, a ready story that waits says
 * why, the status line says how many agents run, and a mark — clicked, or reached with the keyboard — brings that story's terminal
 * `Ralph: <id> — <title>` to the front.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { clearHovers, eventually, graphFrame, nodeInView, openDemo, openDemoGraphs, repoRoot, runCommand, shot, useWorkbench, zoomOutUntil } from './workbench';

/** The fake agent as the custom agent: it starts its story and waits until it is stopped. */
function hangingAgentSettings(): Record<string, unknown> {
  const agent = path.join(repoRoot, 'test', 'fixtures', 'fake-agent.mjs');
  return {
    'ralph.agent.preset': 'custom',
    'ralph.agent.command': `FAKE_AGENT_MODE=hang node "${agent}" \${promptFile} --tag ui-graph-parallel`,
    'ralph.parallel.maxAgents': 2,
    // the demo's stories all match the Pin's priority modules: the same-file guard would run them one at a time
    'ralph.parallel.allowOverlap': true,
  };
}

/** The terminal the panel's tab list shows as the active one (with two terminals VS Code lists them). */
function activeTerminalRow(page: Page): ReturnType<Page['locator']> {
  return page.locator('.part.panel .monaco-list-row.selected .terminal-tabs-entry');
}

async function runningIds(f: Frame): Promise<string[]> {
  return (await f.locator('g.node.running').evaluateAll((els) => els.map((e) => e.getAttribute('data-id') ?? ''))).sort();
}

describe('Task Graph while a parallel run’s agents work (demo workspace, fake agents)', function () {
  const ui = useWorkbench(() => openDemo(hangingAgentSettings()));

  it('two running stories show two marks; clicking one (or Enter on it) makes its terminal the active one', async () => {
    const titles = new Map<string, string>((JSON.parse(readFileSync(path.join(ui.folder, 'prd.json'), 'utf8')) as { userStories: { id: string; title: string }[] }).userStories.map((s) => [s.id, s.title]));
    const f = await openDemoGraphs(ui.page);
    assert.equal(await f.locator('.run-mark').count(), 0, 'nothing runs yet');

    await runCommand(ui.page, 'Ralph: Run Wave');
    await eventually('two stories marked as running in the drawing', async () => (await f.locator('g.node.running .run-mark').count()) === 2, 60_000, () => runningIds(f));
    const ids = await runningIds(f);
    // The agents' terminals opened the panel under the drawing: zoom out until both marks are in view.
    await zoomOutUntil(f, `${ids.join(' and ')} in view`, async () => (await nodeInView(f, ids[0])) && (await nodeInView(f, ids[1])));
    for (const id of ids) {
      assert.match((await f.locator(`g.node[data-id="${id}"] .run-mark`).textContent()) ?? '', /^▶ \d+\/\d+ · \d+:\d\d$/, `${id}'s mark: i/N and the elapsed time`);
      assert.match((await f.locator(`g.node[data-id="${id}"] .run-mark`).getAttribute('aria-label')) ?? '', new RegExp(`^${id} running, iteration \\d+ of \\d+: show its agent's terminal$`));
    }
    await eventually('the status line to say two agents run', async () => /▶ 2 agents running: /.test(await f.locator('.running-line').innerText()), 10_000, () => f.locator('.status').innerText());

    // The side bar's list marks the same two stories.
    const side = await graphFrame(ui.page, 'sidebar');
    await eventually('two marks in the side bar', async () => (await side.locator('.row.running .run-mark').count()) === 2, 20_000, () => side.locator('.row.running').count());
    assert.deepEqual((await side.locator('.row.running').evaluateAll((els) => els.map((e) => e.getAttribute('data-id') ?? ''))).sort(), ids);

    // The demo's other ready stories wait for a free slot: each row and node says so.
    await eventually('a ready story says why it waits', async () => (await side.locator('.row .wait-mark').count()) >= 1, 20_000, () => side.locator('.row').allInnerTexts());
    const waiting = (await side.locator('.row:has(.wait-mark)').first().getAttribute('data-id')) ?? '';
    assert.ok(waiting && !ids.includes(waiting), `a story that does not run waits: ${waiting}`);
    assert.equal(await side.locator(`.row[data-id="${waiting}"] .wait-mark`).innerText(), 'waits for a free slot');
    assert.equal(await side.locator(`.row[data-id="${waiting}"] .wait-mark`).getAttribute('title'), `${waiting} waits for a free slot (2/2 agents running)`);
    assert.match((await side.locator(`.row[data-id="${waiting}"]`).getAttribute('aria-label')) ?? '', /, waits for a free slot \(2\/2 agents running\)$/);
    await zoomOutUntil(f, `${waiting} in view`, () => nodeInView(f, waiting));
    await eventually(`${waiting}'s node to show why it waits`, async () => ((await f.locator(`g.node[data-id="${waiting}"] .wait-mark`).textContent({ timeout: 1_000 })) ?? '').startsWith('⏸ waits for a free slot'), 10_000);

    // The terminal started last is in front: clicking the other story's mark brings its terminal.
    const terminalName = (id: string): string => `Ralph: ${id} — ${titles.get(id) ?? ''}`;
    await eventually('both agent terminals listed in the panel', async () => (await ui.page.locator('.part.panel .terminal-tabs-entry', { hasText: /Ralph: US-/ }).count()) === 2, 30_000);
    const front = (await activeTerminalRow(ui.page).textContent({ timeout: 5_000 }).catch(() => '')) ?? '';
    const [first, second] = front.includes(ids[0]) ? [ids[1], ids[0]] : [ids[0], ids[1]];
    await clearHovers(ui.page);
    await f.locator(`g.node[data-id="${first}"] .run-mark`).click();
    await eventually(`the terminal "${terminalName(first)}" to be the active one`, async () => ((await activeTerminalRow(ui.page).textContent({ timeout: 1_000 })) ?? '').includes(terminalName(first)), 15_000, () => activeTerminalRow(ui.page).allTextContents());
    await shot(ui.page, 'task-graph-parallel');

    // The other mark, with the keyboard: a tab stop of its own; Enter on it.
    await f.locator(`g.node[data-id="${second}"] .run-mark`).press('Enter');
    await eventually(`the terminal "${terminalName(second)}" to be the active one`, async () => ((await activeTerminalRow(ui.page).textContent({ timeout: 1_000 })) ?? '').includes(terminalName(second)), 15_000, () => activeTerminalRow(ui.page).allTextContents());

    await runCommand(ui.page, 'Ralph: Stop All');
    await eventually('the marks to go once the agents stopped', async () => (await f.locator('.run-mark').count()) === 0, 60_000, () => runningIds(f));
  });
});
