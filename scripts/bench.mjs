// Benchmark of the prd.json core and the CLI on large generated PRDs.
//   node scripts/bench.mjs [--sizes 1000,10000,50000] [--runs N] [--profile] [--cli FILE] [--no-hostile]
// Then hostile files: the output size of 4,000 and 8,000-story cycles, and validate/next on
// 10,000 stories that each wait on an unknown id.
// Generates random DAGs (fixed seed; blockedBy 0–3 earlier stories; ~30% passing) into a temp
// dir, times parse / validate / readiness in-process (median of several runs, after a warm-up)
// and `node dist/cli.js next --prd FILE --json` as a whole process (median of >= 5 runs); then
// that process against a bare `node -e` JSON.parse of the same file (and jq) on the demo and on
// 10,000 stories, with the targets of issue 17 §8 (≤ 1.3× and ≤ 1.5×).
// --profile adds a CPU profile of the 10,000-story CLI run, summarised by package/source file;
// --cli times another CLI bundle instead of dist/cli.js (the in-process figures stay those of src/).
// It only prints: a missed target never fails the build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { benchCli, mulberry32 } from './bench-cli.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const sizes = opt('--sizes', '1000,10000,50000').split(',').map(Number);
const runsOverride = Number(opt('--runs', '0'));
const profile = args.includes('--profile');
const TARGET = { stories: 10_000, ms: 150 };

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------
// Machine

const cpus = os.cpus();
console.log(`node ${process.version} on ${process.platform}/${process.arch}, ${os.availableParallelism?.() ?? cpus.length} cores (${cpus[0]?.model?.trim() ?? 'unknown CPU'}), load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

// ---------------------------------------------------------------------------------------------
// The CLI bundle: dist/cli.js (rebuilt when stale, timed from a copy), or the one --cli names.

let cli;
if (args.includes('--cli')) {
  // An explicit bundle (e.g. one built from an older commit, to compare): time it as it is.
  cli = path.resolve(opt('--cli', ''));
  console.log(`CLI: ${cli} (${(statSync(cli).size / 1024).toFixed(0)} KB)`);
} else {
  cli = await benchCli(tmp);
}

// ---------------------------------------------------------------------------------------------
// The core, bundled the same way the CLI bundles it, for in-process timings.

const coreFile = path.join(tmp, 'core.cjs');
await esbuild.build({
  stdin: {
    contents: [
      "export { parsePrdBytes } from './src/core/prd/document';",
      "export { validatePrd } from './src/core/prd/validate';",
      "export { computeReadiness } from './src/core/prd/readiness';",
      "export { analyzePrd } from './src/core/prd/index';",
    ].join('\n'),
    resolveDir: root,
    loader: 'ts',
    sourcefile: 'bench-entry.ts',
  },
  outfile: coreFile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  mainFields: ['module', 'main'],
  logLevel: 'warning',
});
const core = createRequire(import.meta.url)(coreFile);

// ---------------------------------------------------------------------------------------------
// Fixtures


function generatePrd(n, seed) {
  const rand = mulberry32(seed);
  const id = (i) => `US-${String(i + 1).padStart(5, '0')}`;
  const words = ['login', 'profile', 'billing', 'search', 'export', 'audit', 'settings', 'dashboard', 'upload', 'notify'];
  const stories = [];
  for (let i = 0; i < n; i++) {
    const deps = new Set();
    const k = i === 0 ? 0 : Math.floor(rand() * 4);
    for (let j = 0; j < k; j++) {
      deps.add(id(Math.floor(rand() * i)));
    }
    const w = words[i % words.length];
    stories.push({
      id: id(i),
      title: `Add ${w} step ${i}`,
      description: `As a user, I want the ${w} step ${i} so that the ${w} flow is complete.`,
      acceptanceCriteria: Array.from({ length: 2 + Math.floor(rand() * 3) }, (_, c) => `Criterion ${c + 1} for ${w} ${i}`).concat('Typecheck passes'),
      priority: 1 + Math.floor(rand() * Math.max(10, n / 10)),
      passes: rand() < 0.3,
      ...(deps.size > 0 ? { blockedBy: [...deps] } : {}),
      notes: '',
    });
  }
  return `${JSON.stringify({ projectName: 'Bench', branchName: 'ralph/bench', description: `${n} generated stories`, userStories: stories }, null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------------
// Timing

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

function timeInProcess(runs, fn) {
  fn(); // warm-up
  const times = [];
  let value;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    value = fn();
    times.push(ms(t0));
  }
  return { ms: median(times), value };
}

// Each timed process also reports its own CPU time (user + system, all threads) through a
// preloaded module: unlike wall time, it hardly moves when other work shares the machine.
const cpuReport = path.join(tmp, 'cpu-report.cjs');
const cpuOut = path.join(tmp, 'cpu.json');
writeFileSync(
  cpuReport,
  `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(${JSON.stringify(cpuOut)}, JSON.stringify((u.user + u.system) / 1000)); });\n`,
);

/** One run of `node ...argv` from spawn to exit: its wall time and the CPU time it reports (NaN when it reports none). */
function runProcess(argv, check) {
  rmSync(cpuOut, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--require', cpuReport, ...argv], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wall = ms(t0);
  check?.(r);
  return { wall, cpu: existsSync(cpuOut) ? Number(readFileSync(cpuOut, 'utf8')) : NaN };
}

/** Median and minimum wall time of `node ...argv` from spawn to exit, and its median CPU time. */
function timeProcess(runs, argv, check) {
  const times = [];
  const cpu = [];
  for (let i = 0; i < runs; i++) {
    const r = runProcess(argv, check);
    times.push(r.wall);
    if (!Number.isNaN(r.cpu)) {
      cpu.push(r.cpu);
    }
  }
  return { median: median(times), min: Math.min(...times), cpu: cpu.length ? median(cpu) : NaN };
}

const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const pad = (s, n) => String(s).padStart(n);

const baseRuns = runsOverride || 9;
const startup = timeProcess(baseRuns, ['-e', '0']);
const load = timeProcess(baseRuns, [cli, 'next', '--help']);
console.log(
  `node startup (node -e 0): ${fmt(startup.median)} ms (CPU ${fmt(startup.cpu)} ms); ` +
    `CLI start-up and the load of the next command (cli.js next --help): ${fmt(load.median)} ms (CPU ${fmt(load.cpu)} ms); medians of ${baseRuns}`,
);
console.log('');

const header = ['stories', 'file', 'parse', 'validate', 'readiness', 'in-process', 'CLI next (process)', '(min)', '(CPU)'];
const widths = [8, 9, 9, 9, 10, 11, 19, 9, 9];
console.log(header.map((h, i) => pad(h, widths[i])).join(' '));
console.log(widths.map((w) => '-'.repeat(w)).join(' '));

const results = [];
for (const n of sizes) {
  const file = path.join(tmp, `prd-${n}.json`);
  writeFileSync(file, generatePrd(n, 0x5eed ^ n));
  const bytes = readFileSync(file);
  const runs = runsOverride || (n >= 50_000 ? 5 : 7);

  const parse = timeInProcess(runs, () => core.parsePrdBytes(bytes));
  const doc = parse.value;
  if (doc.problems.length > 0 || doc.stories.length !== n) {
    throw new Error(`generated PRD with ${n} stories did not parse cleanly: ${doc.problems[0]?.message}`);
  }
  const validate = timeInProcess(runs, () => core.validatePrd(doc));
  const { graph, cycles, problems } = validate.value;
  if (problems.length > 0) {
    throw new Error(`generated PRD with ${n} stories has problems: ${problems[0].message}`);
  }
  const readiness = timeInProcess(runs, () => core.computeReadiness(doc.stories, graph, cycles));
  const total = timeInProcess(runs, () => core.analyzePrd(bytes));

  const cliMs = timeProcess(Math.max(5, runs), [cli, 'next', '--prd', file, '--json'], (r) => {
    if (r.status !== 0) {
      throw new Error(`cli next exited ${r.status}: ${r.stderr}`);
    }
    const out = JSON.parse(r.stdout);
    if (out.state !== 'ready' || out.next?.id !== readiness.value.next?.story.id) {
      throw new Error(`cli next disagrees with the core: ${r.stdout.slice(0, 200)}`);
    }
  });
  results.push({ n, cliMs: cliMs.median, cpuMs: cliMs.cpu, file });
  const row = [
    n.toLocaleString('en-US'),
    `${(bytes.length / 1024 / 1024).toFixed(1)} MB`,
    `${fmt(parse.ms)} ms`,
    `${fmt(validate.ms)} ms`,
    `${fmt(readiness.ms)} ms`,
    `${fmt(total.ms)} ms`,
    `${fmt(cliMs.median)} ms`,
    `${fmt(cliMs.min)} ms`,
    `${fmt(cliMs.cpu)} ms`,
  ];
  console.log(row.map((c, i) => pad(c, widths[i])).join(' '));
}

console.log('');
console.log('parse = parsePrdBytes (UTF-8 check, JSON, schema, positions); validate = validatePrd; readiness = computeReadiness;');
console.log('in-process = analyzePrd (all three); all in-process figures are medians after a warm-up.');
console.log('CLI next = spawn `node <cli> next --prd FILE --json` until exit: median and minimum wall time of the runs (cold process');
console.log('each time), and the median CPU time (user + system, all threads) the process reports for itself.');
const target = results.find((r) => r.n === TARGET.stories);
if (target) {
  const verdict = target.cliMs < TARGET.ms ? 'PASS' : 'MISS';
  console.log(`Target: ${TARGET.stories.toLocaleString('en-US')} stories: CLI next < ${TARGET.ms} ms … ${fmt(target.cliMs)} ms  ${verdict}`);
  if (os.loadavg()[0] > (os.availableParallelism?.() ?? cpus.length)) {
    console.log(`(the machine is busy, load ${os.loadavg()[0].toFixed(1)}: wall times are inflated; the CPU column is the steadier figure)`);
  }
}

// ---------------------------------------------------------------------------------------------
// The CLI against a bare parse (issue 17 §8): `next --json` on the demo (12 stories) and on
// 10,000 stories, against a `node -e` that reads and JSON.parses the same file (and jq, when
// installed), in this run, interleaved (one of each in turn) so that a change in the machine's
// load reaches all of them alike.

{
  const demo = path.join(root, 'examples/demo/prd.json');
  let big = results.find((r) => r.n === 10_000)?.file;
  if (!big) {
    big = path.join(tmp, 'prd-10000.json');
    writeFileSync(big, generatePrd(10_000, 0x5eed ^ 10_000));
  }
  const hasJq = spawnSync('jq', ['--version'], { encoding: 'utf8' }).status === 0;
  console.log('');
  console.log(`CLI next --json against a bare parse of the same file (node -e: read + JSON.parse)${hasJq ? ' and jq' : ''}, interleaved:`);
  for (const { label, file, target, runs } of [
    { label: 'demo (12 stories)', file: demo, target: 1.3, runs: runsOverride || 21 },
    { label: '10,000 stories', file: big, target: 1.5, runs: runsOverride || 9 },
  ]) {
    const bareArgv = ['-e', `JSON.parse(require('node:fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`];
    const cliArgv = [cli, 'next', '--prd', file, '--json'];
    const ok = (r) => {
      if (r.status !== 0 && r.status !== 2) {
        throw new Error(`exit ${r.status}: ${r.stderr.slice(0, 300)}`);
      }
    };
    const bare = { wall: [], cpu: [] };
    const ours = { wall: [], cpu: [] };
    const jq = [];
    for (let i = 0; i < runs; i++) {
      for (const [into, argv] of [
        [bare, bareArgv],
        [ours, cliArgv],
      ]) {
        const r = runProcess(argv, ok);
        into.wall.push(r.wall);
        into.cpu.push(r.cpu);
      }
      if (hasJq) {
        const t0 = process.hrtime.bigint();
        spawnSync('jq', ['-e', '.userStories | length', file], { stdio: 'ignore' });
        jq.push(ms(t0));
      }
    }
    const ratio = median(ours.wall) / median(bare.wall);
    const cpuRatio = median(ours.cpu) / median(bare.cpu);
    console.log(
      `  ${label.padEnd(18)} bare parse ${fmt(median(bare.wall))} ms, CLI next ${fmt(median(ours.wall))} ms: ${ratio.toFixed(2)}× (target ≤ ${target}×) ${ratio <= target ? 'PASS' : 'MISS'}` +
        `; CPU ${fmt(median(bare.cpu))} / ${fmt(median(ours.cpu))} ms: ${cpuRatio.toFixed(2)}×${hasJq ? `; jq ${fmt(median(jq))} ms` : ''}; medians of ${runs}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile files (issue 8): output size of long cycles and the time of many unknown ids.

if (!args.includes('--no-hostile')) {
  console.log('');
  console.log('Hostile files (CLI as a whole process):');
  const story = (id, deps) => ({ id, title: id, priority: 1, passes: false, description: '', acceptanceCriteria: [], blockedBy: deps });
  for (const n of [4_000, 8_000]) {
    const stories = [];
    for (let i = 0; i < n; i++) {
      stories.push(story(`S${i}`, [`S${(i + n - 1) % n}`]));
    }
    const file = path.join(tmp, `cycle-${n}.json`);
    writeFileSync(file, JSON.stringify({ userStories: stories }, null, 2));
    const input = statSync(file).size;
    const v = spawnSync(process.execPath, [cli, 'validate', '--json', '--prd', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
    const x = spawnSync(process.execPath, [cli, 'next', '--prd', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
    const out = (v.stdout?.length ?? 0) + (v.stderr?.length ?? 0);
    const nextOut = (x.stdout?.length ?? 0) + (x.stderr?.length ?? 0);
    console.log(
      `  ${n.toLocaleString('en-US')}-story cycle (${(input / 1024).toFixed(0)} KB): validate --json ${out.toLocaleString('en-US')} bytes (exit ${v.status}), next ${nextOut.toLocaleString('en-US')} bytes (exit ${x.status})`,
    );
  }
  const n = 10_000;
  const stories = [];
  for (let i = 0; i < n; i++) {
    stories.push(story(`US-${String(i).padStart(5, '0')}`, [`GHOST-${i}`]));
  }
  const file = path.join(tmp, `unknown-${n}.json`);
  writeFileSync(file, JSON.stringify({ userStories: stories }, null, 2));
  const check = (expected) => (r) => {
    if (r.status !== expected) {
      throw new Error(`exit ${r.status}, expected ${expected}: ${r.stderr.slice(0, 300)}`);
    }
  };
  const runs = runsOverride || 3;
  const validate = timeProcess(runs, [cli, 'validate', '--json', '--prd', file], check(1));
  const next = timeProcess(runs, [cli, 'next', '--json', '--prd', file], check(2));
  const verdict = (t) => (t < 1000 ? 'PASS' : 'MISS');
  console.log(`  ${n.toLocaleString('en-US')} stories each blocked by an unknown id: validate ${fmt(validate.median)} ms (CPU ${fmt(validate.cpu)} ms) ${verdict(validate.median)}, next ${fmt(next.median)} ms (CPU ${fmt(next.cpu)} ms) ${verdict(next.median)}; target < 1,000 ms each, medians of ${runs}`);
}

// ---------------------------------------------------------------------------------------------
// --profile: where the time of one 10,000-story CLI run goes.

if (profile && target) {
  const dir = path.join(tmp, 'prof');
  spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, cli, 'next', '--prd', target.file, '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const prof = JSON.parse(readFileSync(path.join(dir, readdirSync(dir)[0]), 'utf8'));
  summariseProfile(prof, cli);
}

function summariseProfile(prof, bundle) {
  // The CLI's files: cli.js and the command bundles beside it (cli/<module>.js), each with its map.
  const lookups = new Map();
  const sourceOf = (file) => {
    if (!lookups.has(file)) {
      lookups.set(file, sourceMapLookup(file));
    }
    return lookups.get(file);
  };
  const commandBundles = path.join(path.dirname(bundle), 'cli') + path.sep;
  const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
  const byCategory = new Map();
  const byFunction = new Map();
  for (const [id, us] of self) {
    const { callFrame: f } = nodes.get(id);
    let category;
    const file = f.url.startsWith('file://') ? fileURLToPath(f.url) : f.url;
    if (file === bundle || file.startsWith(commandBundles)) {
      category = sourceOf(file)(f.lineNumber, f.columnNumber) ?? `${path.relative(path.dirname(bundle), file)} (unmapped)`;
    } else if (f.functionName === '(garbage collector)') {
      category = 'V8 garbage collector';
    } else if (f.url.startsWith('node:') || f.url === '' || !f.url.includes('/')) {
      category = f.functionName === '(idle)' ? '(idle)' : 'node/V8 internals (startup, module load, compile)';
    } else {
      category = f.url;
    }
    byCategory.set(category, (byCategory.get(category) ?? 0) + us);
    const fn = `${f.functionName || '(anonymous)'}  [${category}]`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log('');
  console.log(`CPU profile of one ${TARGET.stories.toLocaleString('en-US')}-story CLI run (${fmt(total / 1000)} ms sampled; profiling slows it down):`);
  for (const [k, us] of [...byCategory].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    console.log(`  ${pad(fmt(us / 1000), 7)} ms ${pad(((100 * us) / total).toFixed(0), 3)}%  ${k}`);
  }
  console.log('  top functions (self time):');
  for (const [k, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 10)) {
    console.log(`  ${pad(fmt(us / 1000), 7)} ms  ${k}`);
  }
}

/** (0-based line, column) in the bundle → grouped source ("zod", "jsonc-parser", "src/core/…"). */
function sourceMapLookup(bundle) {
  const mapFile = `${bundle}.map`;
  if (!existsSync(mapFile)) {
    return () => undefined;
  }
  const map = JSON.parse(readFileSync(mapFile, 'utf8'));
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const lines = [];
  let src = 0;
  for (const line of map.mappings.split(';')) {
    const segs = [];
    let col = 0;
    for (const seg of line.split(',')) {
      if (!seg) {
        continue;
      }
      const vals = [];
      let v = 0;
      let shift = 0;
      for (const ch of seg) {
        const d = chars.indexOf(ch);
        v += (d & 31) << shift;
        if (d & 32) {
          shift += 5;
        } else {
          vals.push(v & 1 ? -(v >>> 1) : v >>> 1);
          v = 0;
          shift = 0;
        }
      }
      col += vals[0];
      if (vals.length > 1) {
        src += vals[1];
      }
      segs.push([col, src]);
    }
    lines.push(segs);
  }
  const group = (s) => {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(s);
    return m ? m[1] : s.replace(/^(\.\.\/)+/, '');
  };
  return (line, column) => {
    const segs = lines[line];
    if (!segs || segs.length === 0) {
      return undefined;
    }
    let best = segs[0];
    for (const s of segs) {
      if (s[0] <= column) {
        best = s;
      } else {
        break;
      }
    }
    return group(map.sources[best[1]]);
  };
}
