// Benchmark of the task-graph layout engines, to choose one by measurement:
//   node scripts/bench-graph.mjs [--sizes 200,1000,5000] [--engines own,elk,elk-fast,d3dag-fast,d3dag-grid] [--runs N]
// Graphs are story-like random DAGs (fixed seed): each story waits on up to 3 stories among the 40
// before it, ~3 edges per story on average (200/600, 1,000/3,000, 5,000/15,000). Each engine runs
// in its own process (median of several runs after a warm-up; an engine over 60 s is stopped).
// Also times the whole host path for our engine: analyse prd.json + build the graph + lay it out.
// Targets (issue 10): 200 ≤ 100 ms, 1,000 ≤ 500 ms, 5,000 ≤ 3 s. It only prints.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { bundleSources, mulberry32 } from './bench-cli.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const TARGETS = { 200: 100, 1000: 500, 5000: 3000 };


/** n stories, ~3 edges each (to earlier stories within 40), 30 % passing. */
export function storyDag(n, seed = 42) {
  const r = mulberry32(seed);
  const edges = [];
  for (let i = 1; i < n; i++) {
    const k = i < 3 ? i : 1 + Math.floor(r() * 5); // 1..5, mean 3
    const seen = new Set();
    for (let j = 0; j < k; j++) {
      const p = Math.max(0, i - 1 - Math.floor(r() * Math.min(40, i)));
      if (!seen.has(p)) {
        seen.add(p);
        edges.push({ from: p, to: i });
      }
    }
  }
  return { n, edges };
}

async function bundleCore(tmp) {
  return bundleSources(
    tmp,
    `export { layeredLayout } from './src/core/taskGraph/layout';
export { taskGraphOf } from './src/core/taskGraph/model';
export { analyzePrd } from './src/core/prd/index';`,
  );
}

const W = 200;
const H = 56;

const engines = {
  own: async (core) => {
    const { layeredLayout } = createRequire(import.meta.url)(core);
    return (g) => {
      const l = layeredLayout(g, { nodeWidth: W, nodeHeight: H });
      return { crossings: l.crossings, width: l.width, height: l.height };
    };
  },
  'host-path': async (core) => {
    // prd.json text → analysis → task graph → layout: what the extension does on a change.
    const { analyzePrd, taskGraphOf, layeredLayout } = createRequire(import.meta.url)(core);
    return (g) => {
      const stories = Array.from({ length: g.n }, (_, i) => ({ id: `US-${i}`, title: `Story ${i}`, priority: i, passes: i % 10 < 3, description: 'd', acceptanceCriteria: ['ok'], blockedBy: [] }));
      for (const e of g.edges) {
        stories[e.to].blockedBy.push(`US-${e.from}`);
      }
      const text = JSON.stringify({ projectName: 'B', branchName: 'b', description: 'd', userStories: stories }, null, 2);
      const t0 = performance.now();
      const graph = taskGraphOf(analyzePrd(text));
      const l = layeredLayout({ n: graph.nodes.length, edges: graph.edges }, { nodeWidth: W, nodeHeight: H });
      return { crossings: l.crossings, ms: performance.now() - t0 };
    };
  },
  elk: async () => elkEngine({}),
  'elk-fast': async () =>
    elkEngine({
      'elk.layered.layering.strategy': 'LONGEST_PATH',
      'elk.layered.crossingMinimization.strategy': 'INTERACTIVE',
      'elk.layered.nodePlacement.strategy': 'SIMPLE',
      'elk.edgeRouting': 'POLYLINE',
    }),
  'd3dag-fast': async () => {
    const d3 = await import('d3-dag');
    const layout = d3.sugiyama().layering(d3.layeringLongestPath()).decross(d3.decrossDfs()).coord(d3.coordGreedy()).nodeSize([H, W]).gap([16, 80]);
    return (g) => {
      const dag = d3Graph(d3, g);
      const { width, height } = layout(dag);
      return { width, height };
    };
  },
  'd3dag-grid': async () => {
    const d3 = await import('d3-dag');
    const layout = d3.grid().nodeSize([W, H]).gap([16, 80]);
    return (g) => {
      const dag = d3Graph(d3, g);
      const { width, height } = layout(dag);
      return { width, height };
    };
  },
};

function d3Graph(d3, g) {
  const parents = Array.from({ length: g.n }, () => []);
  for (const e of g.edges) {
    parents[e.to].push(String(e.from));
  }
  return d3.graphStratify()(Array.from({ length: g.n }, (_, i) => ({ id: String(i), parentIds: parents[i] })));
}

async function elkEngine(layoutOptions) {
  const ELK = createRequire(import.meta.url)('elkjs/lib/elk.bundled.js');
  const elk = new ELK();
  return async (g) => {
    const res = await elk.layout({
      id: 'root',
      layoutOptions: { 'elk.algorithm': 'layered', 'elk.direction': 'RIGHT', ...layoutOptions },
      children: Array.from({ length: g.n }, (_, i) => ({ id: `n${i}`, width: W, height: H })),
      edges: g.edges.map((e, k) => ({ id: `e${k}`, sources: [`n${e.from}`], targets: [`n${e.to}`] })),
    });
    return { width: res.width, height: res.height };
  };
}

// ---- child: one engine, one size
if (args.includes('--child')) {
  const engine = opt('--engine');
  const n = Number(opt('--size'));
  const runs = Number(opt('--runs', '5'));
  const fn = await engines[engine](opt('--core'));
  const g = storyDag(n);
  const times = [];
  let info;
  await fn(storyDag(Math.min(n, 200), 7)); // warm-up
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    info = await fn(g);
    times.push(info.ms ?? performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ median: times[times.length >> 1], min: times[0], edges: g.edges.length, info }));
  process.exit(0);
}

const sizes = opt('--sizes', '200,1000,5000').split(',').map(Number);
const names = opt('--engines', 'own,host-path,d3dag-fast,d3dag-grid,elk-fast,elk').split(',');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-graph-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const core = await bundleCore(tmp);
writeFileSync(path.join(tmp, 'package.json'), '{}');

console.log(`Task-graph layout, ${os.cpus().length} CPUs, Node ${process.version}; median ms (min) of several runs, each engine in its own process.`);
const results = {};
for (const n of sizes) {
  for (const name of names) {
    const runs = Number(opt('--runs', n >= 5000 ? '3' : '5'));
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', '--engine', name, '--size', String(n), '--runs', String(name.startsWith('elk') && n >= 5000 ? 1 : runs), '--core', core], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 1 << 20,
    });
    let line;
    if (child.status === 0) {
      const r = JSON.parse(child.stdout);
      results[`${name}@${n}`] = r.median;
      const target = name === 'own' || name === 'host-path' ? TARGETS[n] : undefined;
      const verdict = target === undefined ? '' : r.median <= target ? `  ✓ target ≤ ${target} ms` : `  ✗ over the ${target} ms target`;
      const extra = r.info?.crossings !== undefined ? `, ${r.info.crossings} crossings` : '';
      line = `${String(r.median.toFixed(1)).padStart(9)} ms (${r.min.toFixed(1)})${extra}${verdict}`;
      results[`edges@${n}`] = r.edges;
    } else {
      line = child.error?.code === 'ETIMEDOUT' ? '   > 60 s (stopped)' : `   failed: ${(child.stderr || '').trim().split('\n').slice(-1)[0]}`;
    }
    console.log(`${String(n).padStart(5)} stories / ${String(results[`edges@${n}`] ?? '?').padStart(5)} edges  ${name.padEnd(11)}${line}`);
  }
}
for (const n of sizes) {
  const own = results[`own@${n}`];
  // d3dag-grid is not a layered drawing (one story per row): compared with layered engines only.
  const layered = names.filter((x) => ['elk', 'elk-fast', 'd3dag-fast'].includes(x));
  const done = layered.filter((x) => results[`${x}@${n}`] !== undefined);
  if (own === undefined || layered.length === 0) {
    continue;
  }
  if (done.length === 0) {
    console.log(`${n} stories: own layered layout ${own.toFixed(0)} ms; every other layered engine took over 60 s.`);
    continue;
  }
  const best = done.reduce((a, b) => (results[`${a}@${n}`] <= results[`${b}@${n}`] ? a : b));
  console.log(`${n} stories: own layered layout ${(results[`${best}@${n}`] / own).toFixed(1)}× faster than the fastest other layered engine (${best}, ${results[`${best}@${n}`].toFixed(0)} ms).`);
}
