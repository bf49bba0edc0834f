// Benchmark of the backlog import (issue 22):
//   node scripts/bench-import.mjs [--sizes 10000] [--runs N]
// Generates a Taskmaster tasks.json (tagged; 0–3 dependencies on earlier tasks, 0–4 sub-tasks,
// a test strategy, ~30% done) and a beads issues.jsonl (0–3 blocks dependencies, an epic every 50
// issues with parent-child links, a design with a checklist) of the same size (fixed seed), then
// times, in process (median of several runs after a warm-up): the import (detection + mapping) and
// the import into a new prd.json text, against a baseline measured in the same run on the same
// file: JSON.parse of the whole file (Taskmaster) and JSON.parse of each line (beads).
// Target (issue 22): the import of 10,000 tasks and of 10,000 issues under 1 s each. It only prints.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleSources, mulberry32 } from './bench-cli.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const sizes = opt('--sizes', '10000').split(',').map(Number);
const runs = Number(opt('--runs', '7'));
const TARGET_MS = 1000;

function taskmasterFile(n, seed = 7) {
  const r = mulberry32(seed);
  const tasks = [];
  for (let i = 1; i <= n; i++) {
    const deps = [];
    for (let k = Math.floor(r() * 4); k > 0 && i > 1; k--) {
      deps.push(1 + Math.floor(r() * (i - 1)));
    }
    const subtasks = Array.from({ length: Math.floor(r() * 5) }, (_, s) => ({ id: s + 1, title: `Step ${s + 1} of task ${i}`, description: 'Do the step.', details: 'Details of the step, a line or two of text.', dependencies: s > 0 ? [`${i}.${s}`] : [], status: r() < 0.5 ? 'done' : 'pending', testStrategy: '' }));
    tasks.push({ id: i, title: `Task ${i}`, description: `What task ${i} is about.`, details: `How to do task ${i}: a paragraph of implementation notes.`, testStrategy: 'Unit tests cover it.', priority: ['high', 'medium', 'low'][Math.floor(r() * 3)], dependencies: [...new Set(deps)], status: r() < 0.3 ? 'done' : 'pending', subtasks });
  }
  return JSON.stringify({ master: { tasks, metadata: { created: '2026-01-01T00:00:00.000Z', description: 'Tasks for master context' } } }, null, 2);
}

function beadsFile(n, seed = 11) {
  const r = mulberry32(seed);
  const lines = [];
  for (let i = 0; i < n; i++) {
    const id = `bd-${i.toString(36)}`;
    const deps = [];
    for (let k = Math.floor(r() * 4); k > 0 && i > 0; k--) {
      deps.push({ issue_id: id, depends_on_id: `bd-${Math.floor(r() * i).toString(36)}`, type: 'blocks', created_at: '2026-01-01T00:00:00Z', created_by: 'bench' });
    }
    if (i % 50 !== 0) {
      deps.push({ issue_id: id, depends_on_id: `bd-${(i - (i % 50)).toString(36)}`, type: 'parent-child', created_at: '2026-01-01T00:00:00Z', created_by: 'bench' });
    }
    lines.push(JSON.stringify({ id, title: `Issue ${i}`, description: `What issue ${i} is about.`, design: '## Acceptance Criteria\n- [ ] it works\n- [ ] it is tested', notes: 'Notes.', status: r() < 0.3 ? 'closed' : 'open', priority: Math.floor(r() * 5), issue_type: i % 50 === 0 ? 'epic' : 'task', created_at: '2026-01-01T00:00:00Z', dependencies: deps }));
  }
  return `${lines.join('\n')}\n`;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn) {
  fn(); // warm-up
  const ms = [];
  for (let k = 0; k < runs; k++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-import-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const core = createRequire(import.meta.url)(await bundleSources(tmp, `export { importFiles, mergeIntoPrd } from './src/core/import/index';`, 'import.cjs'));

console.log(`node ${process.version}, ${os.availableParallelism?.() ?? os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; median of ${runs} runs`);
const fmt = (ms) => `${ms.toFixed(0).padStart(5)} ms`;
for (const n of sizes) {
  const tm = taskmasterFile(n);
  const bd = beadsFile(n);
  const rows = [
    ['Taskmaster', tm, '.taskmaster/tasks/tasks.json', () => JSON.parse(tm)],
    ['beads', bd, '.beads/issues.jsonl', () => bd.split('\n').filter(Boolean).forEach((l) => JSON.parse(l))],
  ];
  for (const [name, text, file, baseline] of rows) {
    const base = time(baseline);
    const imp = time(() => core.importFiles([{ file, text }]));
    const whole = time(() => core.mergeIntoPrd(undefined, core.importFiles([{ file, text }]), { projectName: 'bench', sourceLabel: file }));
    const verdict = whole <= TARGET_MS ? 'ok' : 'MISSED';
    console.log(`${name.padEnd(10)} ${n.toLocaleString('en-US')} items (${(text.length / 1024 / 1024).toFixed(1)} MB): JSON.parse baseline ${fmt(base)} | import ${fmt(imp)} (${(imp / base).toFixed(1)}×) | import + new prd.json ${fmt(whole)} — target < ${TARGET_MS} ms: ${verdict}`);
  }
}
