// Benchmark of the Run Dashboard with 10,000 runs (issue 21), to choose how to draw the charts by
// measuring. No chart library is installed (uPlot, Chart.js: not in node_modules), so the page's
// plain SVG (webview-ui/src/dashboard/chart.ts) is timed beside a plain canvas drawing of the same
// points in the same headless Chromium and the same run:
//   host      computeStats + dashboardCharts + the message's JSON (in Node, what the extension does);
//   page      the real page bundle (dist/webview/main.js, `npm run build`): message validated (zod),
//             the first 2 SVG charts built (tables are built when first shown), layout done, next
//             frame painted; then the other 5, drawn just after that first paint, painted;
//   canvas    the same 7 charts' points drawn on 600×180 canvases (bars/lines, no tables, no zod):
//             the cost of the drawing alone with canvas instead of SVG.
// Medians of --runs fresh pages (after a warm-up). Target (issue 21): first paint under 1 s. It only prints.
//   node scripts/bench-dashboard.mjs [--runs-count 10000] [--runs 5]
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { bundleSources } from './bench-cli.mjs';
import { runsJsonl } from './bench-runs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const N = Number(opt('--runs-count', '10000'));
const RUNS = Number(opt('--runs', '5'));
const TARGET_MS = 1000;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-dashboard-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const core = createRequire(import.meta.url)(
  await bundleSources(
    tmp,
    `export { serializeRun, parseRuns } from './src/core/runs/runs';
export { computeStats } from './src/core/insights/stats';
export { featureResolver } from './src/core/insights/features';
export { dashboardCharts, dashboardHeadline } from './src/core/insights/charts';`,
    'dashboard.cjs',
  ),
);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const runs = core.parseRuns(runsJsonl(core.serializeRun, N)).runs;
const message = () => {
  const stats = core.computeStats(runs, core.featureResolver([]));
  return { type: 'stats', folder: 'bench', filter: {}, features: stats.features, headline: core.dashboardHeadline(stats), skipped: 0, charts: core.dashboardCharts(stats) };
};
message();
const hostMs = median(
  Array.from({ length: RUNS }, () => {
    const t0 = performance.now();
    JSON.stringify(message());
    return performance.now() - t0;
  }),
);
const msg = message();
const points = msg.charts.reduce((n, c) => n + c.points.length, 0);
const rows = msg.charts.reduce((n, c) => n + c.rows.length, 0);

const bundle = path.join(root, 'dist', 'webview', 'main.js');
let script;
try {
  script = readFileSync(bundle, 'utf8');
} catch {
  console.log(`\nRun Dashboard: ${bundle} is missing: run \`npm run build\` first.`);
  process.exit(0);
}
const css = readFileSync(path.join(root, 'dist', 'webview', 'main.css'), 'utf8');
const { chromiumPath, chromiumArgs } = await import('./vscode-host.mjs');
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });

/** A fresh page with the dashboard bundle loaded (the VS Code API stubbed), its `ready` posted. */
async function freshPage() {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.setContent(`<!DOCTYPE html><html><head><style>${css}</style></head><body data-mode="dashboard"><div id="app"></div></body></html>`);
  await page.evaluate(() => {
    window.posted = [];
    let acquired = false;
    // As in VS Code, the API can be acquired once per page.
    window.acquireVsCodeApi = () => {
      if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
      acquired = true;
      return { postMessage: (m) => window.posted.push(m), getState: () => undefined, setState: () => undefined };
    };
  });
  await page.addScriptTag({ content: script, type: 'module' });
  await page.waitForFunction(() => window.posted.some((m) => m.type === 'ready'));
  return page;
}

/** ms from the message's arrival to the next painted frame. */
async function pageRender(page) {
  return page.evaluate(async (m) => {
    const t0 = performance.now();
    window.dispatchEvent(new MessageEvent('message', { data: m }));
    document.body.getBoundingClientRect();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    if (document.querySelectorAll('section.chart').length !== m.charts.length) throw new Error('the page drew no charts');
    const first = performance.now() - t0;
    // The charts below the fold are drawn just after the first paint.
    while (document.querySelectorAll('section.chart svg.plot').length < m.charts.length) {
      if (performance.now() - t0 > 10_000) throw new Error('the page did not draw every chart');
      await new Promise((r) => requestAnimationFrame(r));
    }
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return { first, all: performance.now() - t0 };
  }, msg);
}

async function canvasRender(page) {
  return page.evaluate(async (m) => {
    const t0 = performance.now();
    const holder = document.createElement('div');
    document.body.appendChild(holder);
    for (const c of m.charts) {
      const canvas = document.createElement('canvas');
      canvas.width = 600;
      canvas.height = 180;
      holder.appendChild(canvas);
      const g = canvas.getContext('2d');
      const max = Math.max(1, ...c.points.map((p) => p.value));
      const n = c.points.length;
      g.fillStyle = '#3794ff';
      g.strokeStyle = '#89d185';
      if (c.kind === 'bar') {
        const step = 544 / Math.max(1, n);
        c.points.forEach((p, i) => g.fillRect(56 + i * step, 160 - (p.value / max) * 152, Math.max(0.5, step * 0.8), (p.value / max) * 152));
      } else {
        g.beginPath();
        c.points.forEach((p, i) => g[i === 0 ? 'moveTo' : 'lineTo'](56 + (n === 1 ? 272 : (i / (n - 1)) * 544), 160 - (p.value / max) * 152));
        g.stroke();
      }
      g.fillText(c.summary, 4, 10);
    }
    document.body.getBoundingClientRect();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return performance.now() - t0;
  }, msg);
}

const samples = { first: [], all: [], again: [], canvas: [] };
for (let k = 0; k <= RUNS; k++) {
  const page = await freshPage();
  const first = await pageRender(page);
  const again = await pageRender(page);
  const canvas = await canvasRender(await freshPage());
  if (k > 0) {
    samples.first.push(first.first);
    samples.all.push(first.all);
    samples.again.push(again.all);
    samples.canvas.push(canvas);
  }
  await Promise.all(browser.contexts().map((c) => c.close()));
}
await browser.close();

console.log(`\nRun Dashboard with ${N.toLocaleString('en')} runs (issue 21) — ${os.availableParallelism?.() ?? os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`7 charts, ${points} points, ${rows} table rows; message ${(JSON.stringify(msg).length / 1024).toFixed(0)} KB; medians of ${RUNS} fresh pages after a warm-up`);
console.log(`host: stats + charts + JSON               ${hostMs.toFixed(0).padStart(6)} ms`);
console.log(`page, plain SVG: first paint               ${median(samples.first).toFixed(0).padStart(6)} ms (target < ${TARGET_MS}: ${median(samples.first) + hostMs < TARGET_MS ? 'met' : 'MISSED'}, with the host's part)`);
console.log(`page, plain SVG: every chart drawn         ${median(samples.all).toFixed(0).padStart(6)} ms (the ${msg.charts.length - 2} below the fold just after the first paint)`);
console.log(`page, plain SVG: an update, every chart    ${median(samples.again).toFixed(0).padStart(6)} ms`);
console.log(`canvas drawing of the same points          ${median(samples.canvas).toFixed(0).padStart(6)} ms (no tables, no validation)`);
