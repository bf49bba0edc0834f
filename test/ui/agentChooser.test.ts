/**
 * The first run of a new user whose configured agent (the default, Claude Code) is not installed
 * (issue 18 item 2): clicking "Run Next Ready Story" shows the agent chooser with the agents found
 * on PATH — here a fake agent installed as `amp` — and picking one runs the story with it.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { eventually, host, openRalphContainer, repoRoot, rowLabels, shot, storiesPane, untilShown, useWorkbench, widenSideBar } from './workbench';

describe('First run with the agent missing: the agent chooser', function () {
  let bin = '';
  const ui = useWorkbench(async () => {
    const h = await host();
    // A fake agent under the Amp preset's program name, on the PATH of the agent terminals, set the
    // way a user would (terminal.integrated.env.linux; the preflight looks programs up there too).
    bin = h.makeTempDir('ralph-bin-');
    const agent = path.join(repoRoot, 'test', 'fixtures', 'fake-agent.mjs');
    // The Amp preset pipes its stream-json through render-stream: the fake prints Amp's real stream (a result), as Amp would.
    const stream = path.join(repoRoot, 'test', 'fixtures', 'agent-output', 'amp', 'stream-json.jsonl');
    writeFileSync(path.join(bin, 'amp'), `#!/bin/sh\nFAKE_AGENT_MODE=pass FAKE_AGENT_RECEIPT="${stream}" exec node "${agent}" "$@"\n`, { mode: 0o755 });
    const folder = h.copyFixture('examples/demo');
    const wb = await h.openWorkbench({
      folder,
      viewport: { width: 1400, height: 860 },
      settings: { ...h.demoSettings, 'terminal.integrated.env.linux': { PATH: `${bin}${path.delimiter}\${env:PATH}` } },
    });
    return { wb, folder };
  });

  it('clicking "Run Next Ready Story" offers the agents found on PATH; picking Amp runs US-006 with it', async () => {
    await openRalphContainer(ui.page);
    await widenSideBar(ui.page, 560);
    const header = storiesPane(ui.page).locator('.pane-header');
    const run = storiesPane(ui.page).locator('.pane-header a.action-label[aria-label="Run Next Ready Story"]');
    const chooser = ui.page.locator('.quick-input-widget', { hasText: 'is not installed: choose an agent found on PATH' });
    // One click starts one run; the chooser waits for an answer, so a retry only follows a dropped click.
    await untilShown(
      ui.page,
      async () => {
        await header.hover();
        await run.click();
      },
      chooser,
      'the agent chooser',
      45_000,
      12_000,
    );
    const title = await chooser.locator('.quick-input-title').innerText();
    assert.match(title, /^Claude Code \("claude"\) is not installed: choose an agent found on PATH$/);
    const amp = chooser.locator('.monaco-list-row', { hasText: 'Amp' }).first();
    await amp.waitFor({ state: 'visible', timeout: 10_000 });
    const row = await amp.innerText();
    assert.ok(row.includes(`"amp" found at ${path.join(bin, 'amp')}`), `the row names the program and where: ${row}`);
    await shot(ui.page, 'agent-chooser');

    await amp.click();
    await chooser.waitFor({ state: 'hidden', timeout: 10_000 });
    const runs = path.join(ui.folder, '.ralph', 'runs.jsonl');
    await eventually('the run with Amp to be recorded in runs.jsonl', async () => existsSync(runs) && readFileSync(runs, 'utf8').includes('"storyId":"US-006"'), 60_000);
    const line = JSON.parse(readFileSync(runs, 'utf8').split('\n')[0]) as { agent: string; outcome: string };
    assert.deepEqual([line.agent, line.outcome], ['amp', 'passed']);
    await eventually('the Stories view to show US-005 as next', async () => ((await rowLabels(ui.page))[0] ?? '').startsWith('US-005 · '), 15_000, () => rowLabels(ui.page));
  });
});
