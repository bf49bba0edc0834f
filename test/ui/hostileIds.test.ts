/**
 * Story ids named like Object.prototype members in the Task Graph page (issue 16 item 14): the
 * last run's outcome is shown for the stories that ran and for no other; before, `constructor`
 * showed "function Object() { [native code] }" and `__proto__` lost its outcome.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { eventually, graphFrame, host, openRalphContainer, runCommand, setExpanded, shot, useWorkbench } from './workbench';

const IDS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
/** The stories that ran, and how their last run ended. */
const OUTCOMES = new Map([
  ['__proto__', 'no-progress'],
  ['toString', 'passed'],
]);

describe('Task Graph with story ids named like Object.prototype members (issue 16 item 14)', function () {
  const ui = useWorkbench(async () => {
    const h = await host();
    const folder = h.copyFixture('examples/demo');
    const stories = IDS.map((id, i) => ({
      id,
      title: `Story ${id}`,
      priority: i + 1,
      passes: id === 'toString',
      description: `About ${id}.`,
      acceptanceCriteria: ['Works'],
      ...(id === '__proto__' ? { blockedBy: ['constructor'] } : id === 'hasOwnProperty' ? { blockedBy: ['toString', '__proto__'] } : {}),
    }));
    writeFileSync(path.join(folder, 'prd.json'), `${JSON.stringify({ projectName: 'Hostile', branchName: 'ralph/hostile', description: 'Ids', userStories: stories }, null, 2)}\n`);
    mkdirSync(path.join(folder, '.ralph'), { recursive: true });
    const runs = [...OUTCOMES].map(([storyId, outcome], k) =>
      JSON.stringify({ start: `2026-01-0${k + 1}T10:00:00Z`, end: `2026-01-0${k + 1}T10:05:00Z`, storyId, storyTitle: `Story ${storyId}`, agent: 'custom', exitCode: 0, durationMs: 300000, passingBefore: 0, passingAfter: 0, storyPasses: false, commit: null, complete: false, outcome, promptFile: '', iteration: 1, loopId: `l${k}` }),
    );
    writeFileSync(path.join(folder, '.ralph', 'runs.jsonl'), `${runs.join('\n')}\n`);
    const wb = await h.openWorkbench({ folder, viewport: { width: 1400, height: 860 }, settings: h.demoSettings });
    return { wb, folder };
  });

  it('the wave list and the drawing show the last outcome of the stories that ran, and none for the others', async () => {
    await openRalphContainer(ui.page);
    await setExpanded(ui.page, 'Runs', false);
    await setExpanded(ui.page, 'Memory', false);
    await setExpanded(ui.page, 'Task Graph', true);
    const side = await graphFrame(ui.page, 'sidebar');
    await eventually('5 rows in the wave list', async () => (await side.locator('.row').count()) === 5, 15_000, () => side.locator('.row').count());
    const rowOutcomes = async (): Promise<string[][]> =>
      side.locator('.row').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-id') ?? '', r.querySelector('.outcome')?.textContent ?? '']));
    // Done stories show no outcome in the list (toString passed).
    const expectedRows = [['constructor', ''], ['__proto__', 'no-progress'], ['hasOwnProperty', ''], ['valueOf', ''], ['toString', '']];
    await eventually('the outcome of __proto__ and no other in the wave list', async () => JSON.stringify((await rowOutcomes()).sort()) === JSON.stringify([...expectedRows].sort()), 10_000, rowOutcomes);

    await runCommand(ui.page, 'Ralph: Open Task Graph in Editor');
    const f = await graphFrame(ui.page, 'editor');
    await eventually('5 nodes in the drawing', async () => (await f.locator('g.node').count()) === 5, 20_000, () => f.locator('g.node').count());
    const nodeOutcomes = async (): Promise<string[][]> =>
      f.locator('g.node').evaluateAll((nodes) => nodes.map((n) => [n.getAttribute('data-id') ?? '', n.querySelector('text.outcome')?.textContent ?? '']));
    const expected = IDS.map((id) => [id, OUTCOMES.has(id) ? `last run: ${OUTCOMES.get(id)}` : '']);
    await eventually('the outcomes in the drawing', async () => JSON.stringify((await nodeOutcomes()).sort()) === JSON.stringify([...expected].sort()), 10_000, nodeOutcomes);
    assert.doesNotMatch(await f.locator('body').innerText(), /native code|\[object Object\]/);
    await shot(ui.page, 'task-graph-prototype-ids');
  });
});
