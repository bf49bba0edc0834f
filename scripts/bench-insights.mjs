// Benchmark of reading runs.jsonl for the run insights (issue 21: `ralph-workbench stats` and the Run
// Dashboard): 100,000 generated lines (~30 MB, fixed seed, costs and tokens on most runs, some
// rate-limited, a few torn lines), read and folded into the figures by the streaming reader
// (src/node/insights/runsReader.ts + core/insights/stats.ts), beside, in the same run:
//   baseline  readFileSync + split + JSON.parse of every line (nothing else), and
//   parseRuns the whole text through parseRuns (what the extension's RunsWorkspace does) + computeStats.
// Each reader runs in a process of its own (median of --runs runs after a warm-up), reporting its
// time, peak RSS (resourceUsage().maxRSS) and peak heap used (sampled every 5 ms).
// Targets (issue 21): under 1 s, under 200 MB. It only prints.
//   node scripts/bench-insights.mjs [--lines 100000] [--runs 5] [--write FILE: only write the generated runs.jsonl]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { bundleSources } from './bench-cli.mjs';
import { runsJsonl } from './bench-runs.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const LINES = Number(opt('--lines', '100000'));
const RUNS = Number(opt('--runs', '5'));
const TARGET = { ms: 1000, mb: 200 };

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-insights-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const core = await bundleSources(
  tmp,
  `export { serializeRun, parseRuns } from './src/core/runs/runs';
export { StatsAccumulator, computeStats } from './src/core/insights/stats';
export { featureResolver } from './src/core/insights/features';
export { streamRuns } from './src/node/insights/runsReader';`,
  'insights.cjs',
);
const { serializeRun } = createRequire(import.meta.url)(core);

const generateRuns = (n) => runsJsonl(serializeRun, n);

if (args.includes('--write')) {
  // The generated file alone, e.g. to profile a reader or try `ralph-workbench stats` on it.
  writeFileSync(opt('--write', 'runs.jsonl'), generateRuns(LINES));
  process.exit(0);
}
const file = path.join(tmp, 'runs.jsonl');
writeFileSync(file, generateRuns(LINES));
const size = statSync(file).size;

const READERS = {
  baseline: `
    const text = require('node:fs').readFileSync(file, 'utf8');
    let n = 0;
    for (const line of text.split('\\n')) { if (line) { try { JSON.parse(line); n++; } catch {} } }
    return n;`,
  parseRuns: `
    const { parseRuns, computeStats, featureResolver } = require(core);
    const parsed = parseRuns(require('node:fs').readFileSync(file, 'utf8'));
    return computeStats(parsed.runs, featureResolver([])).runs;`,
  stream: `
    const { streamRuns, StatsAccumulator, featureResolver } = require(core);
    const acc = new StatsAccumulator(featureResolver([]));
    await streamRuns(file, (r) => acc.add(r));
    return acc.result().runs;`,
};

/** One timed read in a fresh process: {ms, rssMb, heapMb, runs}. */
function measure(name) {
  const script = `
    const file = ${JSON.stringify(file)}, core = ${JSON.stringify(core)};
    let heap = 0;
    const sample = () => { heap = Math.max(heap, process.memoryUsage().heapUsed); };
    const timer = setInterval(sample, 5);
    (async () => {
      const t0 = performance.now();
      const runs = await (async () => { ${READERS[name]} })();
      const ms = performance.now() - t0;
      sample();
      clearInterval(timer);
      console.log(JSON.stringify({ ms, rssMb: process.resourceUsage().maxRSS / 1024, heapMb: heap / 1048576, runs }));
    })();`;
  const p = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  if (p.status !== 0) {
    throw new Error(`${name}: ${p.stderr}`);
  }
  return JSON.parse(p.stdout);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpus = os.cpus();
console.log(`\nRun insights: reading runs.jsonl (issue 21) — node ${process.version}, ${os.availableParallelism?.() ?? cpus.length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`${LINES.toLocaleString('en')} lines, ${(size / 1048576).toFixed(1)} MB; median of ${RUNS} runs (after a warm-up), each in a fresh process`);
console.log('reader                                    time     peak RSS   peak heap   runs');
const results = {};
for (const name of Object.keys(READERS)) {
  measure(name);
  const samples = Array.from({ length: RUNS }, () => measure(name));
  results[name] = { ms: median(samples.map((s) => s.ms)), rssMb: median(samples.map((s) => s.rssMb)), heapMb: median(samples.map((s) => s.heapMb)), runs: samples[0].runs };
}
const label = { baseline: 'baseline: JSON.parse of every line', parseRuns: 'parseRuns (whole text) + computeStats', stream: 'streamRuns + StatsAccumulator (stats)' };
for (const [name, r] of Object.entries(results)) {
  console.log(`${label[name].padEnd(40)}${`${r.ms.toFixed(0)} ms`.padStart(8)}${`${r.rssMb.toFixed(0)} MB`.padStart(12)}${`${r.heapMb.toFixed(0)} MB`.padStart(12)}${String(r.runs).padStart(8)}`);
}
const s = results.stream;
console.log(
  `stats reader: ${s.ms.toFixed(0)} ms (target < ${TARGET.ms}: ${s.ms < TARGET.ms ? 'met' : 'MISSED'}), peak RSS ${s.rssMb.toFixed(0)} MB (target < ${TARGET.mb}: ${s.rssMb < TARGET.mb ? 'met' : 'MISSED'}); ${(s.ms / results.baseline.ms).toFixed(2)}× the baseline's time, ${(s.rssMb / results.baseline.rssMb).toFixed(2)}× its RSS`,
);
