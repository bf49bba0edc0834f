// Benchmark of the parallel loop's scheduling (issue 19): a 10,000-story DAG in 100 waves of 100
// stories (each story of wave k waits on 1–3 stories of wave k-1), every story predicted to touch
// 2 files of 2,000 (so the same-file guard holds some back), run to the end by a pretend driver
// whose agents pass at once and whose merges land at once: every start, merge and stop the loop
// decides, without any agent time. Compared with a baseline measured in the same run: computing
// the schedule once (computeSchedule) and analysing prd.json once (analyzePrd), what the serial
// loop does before every iteration.
//   node scripts/bench-parallel.mjs [--stories 10000] [--width 100] [--agents 3,8] [--runs 5]
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { bundleSources, mulberry32 } from './bench-cli.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const N = Number(opt('--stories', '10000'));
const WIDTH = Number(opt('--width', '100'));
const AGENTS = opt('--agents', '3,8').split(',').map(Number);
const RUNS = Number(opt('--runs', '5'));

/** prd.json text: N stories in waves of WIDTH, each waiting on 1–3 stories of the wave before. */
function wavePrd(seed = 19) {
  const r = mulberry32(seed);
  const stories = [];
  for (let i = 0; i < N; i++) {
    const wave = Math.floor(i / WIDTH);
    const blockedBy = [];
    if (wave > 0) {
      const k = 1 + Math.floor(r() * 3);
      for (let j = 0; j < k; j++) {
        const id = `US-${(wave - 1) * WIDTH + Math.floor(r() * WIDTH)}`;
        if (!blockedBy.includes(id)) blockedBy.push(id);
      }
    }
    stories.push({ id: `US-${i}`, title: `Story ${i}`, priority: Math.floor(r() * 4), passes: false, description: 'd', acceptanceCriteria: ['ok'], blockedBy });
  }
  const predictions = new Map(stories.map((s) => [s.id, [`src/m${Math.floor(r() * 2000)}.ts`, `src/m${Math.floor(r() * 2000)}.ts`]]));
  return { text: JSON.stringify({ projectName: 'Bench', branchName: 'ralph/bench', userStories: stories }, null, 2), predictions };
}

async function bundleCore(tmp) {
  return bundleSources(
    tmp,
    `export { analyzePrd } from './src/core/prd/index';
export { computeSchedule } from './src/core/prd/schedule';
export { ParallelLoop } from './src/core/loop/parallelLoop';`,
  );
}

/** Drives the loop to its stop: the oldest running agent passes, a merge lands as soon as it is asked for. */
function drive(ParallelLoop, prd, predictions, maxAgents) {
  const loop = new ParallelLoop(prd, { config: { maxAgents, maxIterations: N * 2 }, predictions });
  const running = [];
  let merge;
  let events = 0;
  let overlapWaits = 0;
  let stop;
  const take = (commands) => {
    for (const c of commands) {
      if (c.kind === 'start') running.push(c.storyId);
      else if (c.kind === 'merge') merge = c.storyId;
      else if (c.kind === 'stop') stop = c;
    }
    overlapWaits += loop.waits.filter((w) => w.reason.kind === 'overlap').length > 0 ? 1 : 0;
  };
  take(loop.begin());
  while (!stop) {
    events++;
    if (merge !== undefined) {
      const id = merge;
      merge = undefined;
      take(loop.handle({ kind: 'merged', storyId: id, outcome: 'merged' }));
    } else if (running.length > 0) {
      take(loop.handle({ kind: 'agentEnded', storyId: running.shift(), outcome: 'passed' }));
    } else {
      throw new Error('the pretend driver has nothing to do and the loop has not stopped');
    }
  }
  return { events, stop, overlapWaits };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function time(fn) {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-parallel-'));
try {
  const core = createRequire(import.meta.url)(await bundleCore(tmp));
  const { text, predictions } = wavePrd();
  const prd = core.analyzePrd(text);
  console.log(`Parallel loop scheduling, ${N.toLocaleString('en-US')} stories in ${Math.ceil(N / WIDTH)} waves of ${WIDTH}, ${os.cpus().length} CPUs, Node ${process.version}; median of ${RUNS} runs after a warm-up.`);
  const analyse = [];
  const schedule = [];
  for (let k = 0; k <= RUNS; k++) {
    const a = time(() => core.analyzePrd(text));
    const s = time(() => core.computeSchedule(prd.doc.stories));
    if (k > 0) {
      analyse.push(a.ms);
      schedule.push(s.ms);
    }
  }
  const base = median(schedule);
  console.log(`  baseline: computeSchedule once ${base.toFixed(1)} ms; analyzePrd once ${median(analyse).toFixed(1)} ms`);
  for (const agents of AGENTS) {
    const runs = [];
    let last;
    for (let k = 0; k <= RUNS; k++) {
      const r = time(() => drive(core.ParallelLoop, prd, predictions, agents));
      if (k > 0) runs.push(r.ms);
      last = r.value;
    }
    if (last.stop.reason !== 'all-pass') {
      throw new Error(`the run stopped with ${last.stop.reason}: ${last.stop.message}`);
    }
    const ms = median(runs);
    console.log(
      `  maxAgents ${String(agents).padStart(2)}: the whole run ${ms.toFixed(1)} ms = ${(ms / base).toFixed(1)}× computeSchedule once; ` +
        `${last.events.toLocaleString('en-US')} events (${N.toLocaleString('en-US')} starts, ${N.toLocaleString('en-US')} merges), ` +
        `${((ms * 1000) / last.events).toFixed(1)} µs per event; a guard wait after ${last.overlapWaits.toLocaleString('en-US')} of them; ${last.stop.reason}`,
    );
  }
  console.log(`  (a schedule computed again at every event would cost about ${(2 * N).toLocaleString('en-US')} × ${base.toFixed(1)} ms = ${((2 * N * base) / 1000).toFixed(0)} s.)`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
