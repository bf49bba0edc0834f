/**
 * Issue 18 §3: the editor graph is readable at first sight, in the light, dark and high-contrast
 * themes. At first open (a fresh panel) node labels are 11 px or more on screen, for the demo and
 * for a backlog of 60 stories (fit scrolls instead of shrinking them); arrows and arrowheads meet
 * 3:1 against the editor background; the detail pane and the legend never cover the selected
 * story; a resize refits the picture, unless the user zoomed by hand (then their view stays).
 */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { contrastRatio, over, parseCssColor, type Rgba } from '../../webview-ui/src/graph/contrast';
import { eventually, graphFrame, openDemo, openRalphContainer, runCommand, settled, shot, useWorkbench } from './workbench';

interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The default light, dark and high-contrast themes, each set (`workbench.colorTheme`) for a workbench of its own. */
const THEMES = [
  { name: 'light', id: 'Default Light Modern', kind: 'vscode-light' },
  { name: 'dark', id: 'Default Dark Modern', kind: 'vscode-dark' },
  { name: 'high-contrast', id: 'Default High Contrast', kind: 'vscode-high-contrast' },
] as const;

/** A fresh editor graph: every editor closed first, so the page opens as it does the first time. */
async function openFresh(page: Page): Promise<Frame> {
  await runCommand(page, 'View: Close All Editors');
  await eventually('no task-graph editor left', async () => {
    for (const f of page.frames()) {
      if ((await f.locator('body[data-mode="editor"] .app').count().catch(() => 0)) > 0) {
        return false;
      }
    }
    return true;
  }, 15_000);
  await runCommand(page, 'Ralph: Open Task Graph in Editor');
  return graphFrame(page, 'editor');
}

/** The smallest on-screen height of the drawn node labels (id and title): their rectangle, and their font size times the drawing's scale. */
async function labelHeights(f: Frame): Promise<{ rect: number; font: number; count: number }> {
  return f.evaluate(() => {
    const texts = Array.from(document.querySelectorAll<SVGTextElement>('g.node text.id, g.node text.title')).filter((t) => (t.textContent ?? '') !== '');
    const rects = texts.map((t) => t.getBoundingClientRect().height);
    const fonts = texts.map((t) => Number.parseFloat(getComputedStyle(t).fontSize) * (t.getScreenCTM()?.a ?? 0));
    return { rect: Math.min(...rects), font: Math.min(...fonts), count: texts.length };
  });
}

/** The editor background and the colours the arrows are drawn with (edges' strokes, arrowheads' fills). */
async function arrowColours(f: Frame): Promise<{ background: string; strokes: { what: string; colour: string; opacity: string }[] }> {
  return f.evaluate(() => {
    const probe = document.createElement('div');
    probe.style.background = 'var(--vscode-editor-background)';
    document.body.append(probe);
    const background = getComputedStyle(probe).backgroundColor;
    probe.remove();
    const strokes: { what: string; colour: string; opacity: string }[] = [];
    for (const kind of ['edge', 'critical']) {
      const edge = document.querySelector<SVGPathElement>(`path.edge.${kind}`);
      if (edge) {
        strokes.push({ what: `${kind} line`, colour: getComputedStyle(edge).stroke, opacity: getComputedStyle(edge).opacity });
        const head = document.querySelector<SVGPathElement>(`#arrow-${kind} path`);
        strokes.push({ what: `${kind} arrowhead`, colour: head ? getComputedStyle(head).fill : 'none', opacity: '1' });
      }
    }
    return { background, strokes };
  });
}

function colour(text: string): Rgba {
  return parseCssColor(text) ?? assert.fail(`not a colour: ${text}`);
}

function intersects(a: Rect, b: Rect): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

const rectOf = (f: Frame, selector: string): Promise<Rect | undefined> =>
  f.evaluate((s) => {
    const e = document.querySelector(s);
    if (!e || (e instanceof HTMLElement && e.offsetParent === null && getComputedStyle(e).position !== 'fixed')) {
      return undefined;
    }
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  }, selector);

async function assertReadable(f: Frame, what: string): Promise<void> {
  await eventually(`${what}: labels drawn`, async () => (await labelHeights(f)).count > 0, 15_000);
  await settled(f);
  const h = await labelHeights(f);
  console.log(`      ${what}: smallest label ${h.rect.toFixed(1)} px high (font ${h.font.toFixed(2)} px on screen), ${h.count} labels drawn`);
  assert.ok(h.rect >= 11, `${what}: node labels are ${h.rect.toFixed(1)} px high on screen (at least 11 wanted)`);
  assert.ok(h.font >= 11 - 1e-6, `${what}: the labels' font is ${h.font.toFixed(2)} px on screen (at least 11 wanted)`);
  const c = await arrowColours(f);
  assert.ok(c.strokes.length >= 2, `${what}: arrows drawn`);
  const bg = colour(c.background);
  for (const s of c.strokes) {
    assert.equal(s.opacity, '1', `${what}: the ${s.what} is not faded`);
    const ratio = contrastRatio(over(colour(s.colour), bg), bg);
    console.log(`      ${what}: ${s.what} ${s.colour} on ${c.background}: ${ratio.toFixed(2)}:1`);
    assert.ok(ratio >= 3, `${what}: the ${s.what} (${s.colour}) has ${ratio.toFixed(2)}:1 against the background ${c.background} (3:1 wanted)`);
  }
}

/** The stories in view (their rectangles) and the drawing's: none of them is under the legend. */
async function assertLegendClear(f: Frame): Promise<{ shown: (Rect & { id: string })[]; wrap: Rect }> {
  const legend = (await rectOf(f, '.legend')) ?? assert.fail('the legend is shown');
  const nodes = await f.locator('g.node').evaluateAll((els) => els.map((e) => ({ id: e.getAttribute('data-id') ?? '', ...(JSON.parse(JSON.stringify(e.getBoundingClientRect())) as Rect) })));
  const wrap = (await rectOf(f, '.canvas-wrap')) ?? assert.fail('the drawing is shown');
  const shown = nodes.filter((n) => intersects(n, wrap));
  // what shows of each story: the drawing clips it at its edges
  const visible = (n: Rect): Rect => ({ left: Math.max(n.left, wrap.left), top: Math.max(n.top, wrap.top), right: Math.min(n.right, wrap.right), bottom: Math.min(n.bottom, wrap.bottom) });
  assert.deepEqual(shown.filter((n) => intersects(visible(n), legend)).map((n) => n.id), [], 'no story under the legend');
  return { shown, wrap };
}

/** 60 stories in 5 waves of 12 (each waits on one or two of the wave before), the first 6 done. */
function sixtyStories(): unknown {
  const id = (k: number): string => `US-${String(k + 1).padStart(3, '0')}`;
  const userStories = Array.from({ length: 60 }, (_, k) => {
    const wave = Math.floor(k / 12);
    const blockedBy = wave === 0 ? [] : [id(k - 12), ...(k % 3 === 0 ? [id(k - 12 + (k % 12 === 11 ? -1 : 1))] : [])];
    return { id: id(k), title: `Story ${k + 1} of the large backlog`, description: `Story ${k + 1}.`, acceptanceCriteria: ['Typecheck passes'], priority: k + 1, passes: k < 6, blockedBy, notes: '' };
  });
  return { projectName: 'Large', branchName: 'ralph/large', description: 'Sixty stories.', userStories };
}

for (const theme of THEMES) {
  describe(`Task Graph at first sight (editor, ${theme.name} theme)`, function () {
    const ui = useWorkbench(() => openDemo({ 'workbench.colorTheme': theme.id }));

    before(async function () {
      this.timeout(60_000);
      await openRalphContainer(ui.page);
    });

    it(`${theme.name}: the demo at first open has labels of 11 px or more and arrows at 3:1; the detail pane and legend never cover the selected story (screenshot)`, async () => {
      const f = await openFresh(ui.page);
      await eventually(`the webview in the ${theme.name} theme`, async () => (await f.locator(`body.${theme.kind}`).count()) === 1, 15_000);
      await eventually('the demo drawn', async () => (await f.locator('g.node').count()) > 0 && (await f.locator('path.edge').count()) > 0, 20_000);
      await assertReadable(f, `demo, ${theme.name}`);
      await shot(ui.page, `graph-first-open-${theme.name}`);

      const { shown, wrap } = await assertLegendClear(f);

      // The story drawn furthest right (its centre in view) is clicked: the detail pane opens beside it, never over it.
      const target = shown.filter((n) => (n.left + n.right) / 2 < wrap.right && (n.top + n.bottom) / 2 < wrap.bottom).sort((a, b) => b.right - a.right)[0];
      await f.locator(`g.node[data-id="${target.id}"]`).click();
      const pane = f.locator('aside.detail');
      await eventually(`the detail pane to show ${target.id}`, async () => ((await pane.locator('h2').textContent()) ?? '').startsWith(target.id), 10_000, () => pane.innerText());
      let last: unknown;
      await eventually(`${target.id} in view, clear of the detail pane and the legend`, async () => {
        await settled(f);
        const node = await rectOf(f, `g.node[data-id="${target.id}"]`);
        const drawing = await rectOf(f, '.canvas-wrap');
        const detail = await rectOf(f, 'aside.detail');
        const key = await rectOf(f, '.legend');
        last = { node, drawing, detail, key };
        return node !== undefined && drawing !== undefined && detail !== undefined && key !== undefined &&
          node.left >= drawing.left && node.right <= drawing.right && node.top >= drawing.top && node.bottom <= drawing.bottom &&
          !intersects(node, detail) && !intersects(node, key);
      }, 5_000, async () => last);
      await shot(ui.page, `graph-selected-${theme.name}`);
    });

    it(`${theme.name}: a backlog of 60 stories opens with labels of 11 px or more and arrows at 3:1`, async () => {
      const prd = path.join(ui.folder, 'prd.json');
      const original = readFileSync(prd, 'utf8');
      try {
        writeFileSync(prd, `${JSON.stringify(sixtyStories(), null, 2)}\n`);
        const f = await openFresh(ui.page);
        await eventually(`the webview in the ${theme.name} theme`, async () => (await f.locator(`body.${theme.kind}`).count()) === 1, 15_000);
        await eventually('the 60 stories', async () => /: 60 stories/.test(await f.locator('.status .summary').innerText()) && (await f.locator('g.node').count()) > 0, 20_000, () => f.locator('.status').innerText());
        await assertReadable(f, `60 stories, ${theme.name}`);
        await assertLegendClear(f);
        await shot(ui.page, `graph-first-open-60-${theme.name}`);
      } finally {
        writeFileSync(prd, original);
      }
    });

    if (theme.name !== 'light') {
      return;
    }

    it('a resized panel refits the picture; after a zoom by hand the view stays as the user left it', async () => {
      const f = await openFresh(ui.page);
      await eventually('the demo drawn', async () => (await f.locator('g.node').count()) > 0, 20_000);
      await settled(f);
      /** How far the picture is from being centred top to bottom (it fits that way): 0 when centred. */
      const offCentre = async (): Promise<number> => {
        const nodes = await f.locator('g.node').evaluateAll((els) => els.map((e) => JSON.parse(JSON.stringify(e.getBoundingClientRect())) as Rect));
        const wrap = (await rectOf(f, '.canvas-wrap')) as Rect;
        const top = Math.min(...nodes.map((n) => n.top)) - wrap.top;
        const bottom = wrap.bottom - Math.max(...nodes.map((n) => n.bottom));
        return Math.abs(top - bottom);
      };
      const height = async (): Promise<number> => ((await rectOf(f, '.canvas-wrap')) as Rect).bottom - ((await rectOf(f, '.canvas-wrap')) as Rect).top;
      assert.ok((await offCentre()) < 2, `centred at first open (${await offCentre()} px off)`);
      const before = await height();
      await runCommand(ui.page, 'View: Toggle Panel Visibility');
      await eventually('the drawing to change height', async () => Math.abs((await height()) - before) > 40, 10_000, height);
      await eventually('the picture refitted (centred in the new height)', async () => {
        await settled(f);
        return (await offCentre()) < 2;
      }, 5_000, offCentre);

      // zoomed by hand: a resize keeps the user's view
      await f.locator('vscode-toolbar-button[data-action="zoomIn"]').click();
      await settled(f);
      const transform = (): Promise<string | null> => f.locator('svg.graph g.scene').getAttribute('transform');
      const kept = await transform();
      const before2 = await height();
      await runCommand(ui.page, 'View: Toggle Panel Visibility');
      await eventually('the drawing to change height again', async () => Math.abs((await height()) - before2) > 40, 10_000, height);
      await settled(f);
      await settled(f);
      assert.equal(await transform(), kept, 'the zoom and pan the user chose stay');
    });
  });
}
