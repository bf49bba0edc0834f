// Benchmark of the headless parallel loop (issue 19), whole process: `ralph-workbench run` with the
// pretend agent (test/fixtures/fake-agent.mjs in `sleep` mode: it waits 2 s, writes a file of its
// own, sets passes, appends a learning and commits `feat: <id> - …`).
//
//   node scripts/bench-parallel-run.mjs [--speedup] [--kills N] [--profile [--files N]]
//                                                   (default: --speedup and 20 kills)
//
// --speedup: a 24-story DAG in 6 waves of 4 (each story waits on two of the wave before it) run
//   with --parallel 4 and, on a fresh copy of the same repository in the same run, with
//   --parallel 1 (the baseline). Target: parallel 4 ≤ 0.4 × parallel 1. Every story must pass,
//   every feat: commit be reachable from the feature branch, every learning be in progress.txt once.
// --profile: where one story's overhead goes: a few independent stories run with --parallel 1 in
//   a repository of --files tracked files (default 5,000), every git call the runner makes timed by
//   git's own trace2 (GIT_TRACE2_EVENT; the pretend agent's git calls are left out), per command.
// --kills N: N times, a 12-story run is killed (SIGKILL) at a random moment, then run again to the
//   end: no commit, learning or story state may be lost, and no worktree may be left holding
//   commits the feature branch lacks without `.ralph/parallel.json` listing it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const both = !args.includes('--speedup') && !args.includes('--kills') && !args.includes('--profile');
const killsAt = args.indexOf('--kills');
const KILLS = killsAt >= 0 ? Math.max(1, Number(args[killsAt + 1]) || 20) : 20;
const FAKE = path.join(root, 'test', 'fixtures', 'fake-agent.mjs');
const FEATURE = 'ralph/bench';
const AGENT_MS = 2000;

if (!existsSync(path.join(root, 'dist', 'cli', 'run.js'))) {
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
}
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-run-'));
// A private copy of the CLI: a build elsewhere must not change it under the bench.
cpSync(path.join(root, 'dist', 'cli.js'), path.join(tmp, 'cli.js'));
cpSync(path.join(root, 'dist', 'cli'), path.join(tmp, 'cli'), { recursive: true });
const CLI = path.join(tmp, 'cli.js');
const git = (cwd, ...a) => execFileSync('git', a, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** Stories in `waves` waves of `width`; each waits on two stories of the wave before it. */
function dagPrd(waves, width) {
  const stories = [];
  for (let w = 0; w < waves; w++) {
    for (let k = 0; k < width; k++) {
      const id = `US-${String(w * width + k + 1).padStart(3, '0')}`;
      const deps = w === 0 ? [] : [`US-${String((w - 1) * width + k + 1).padStart(3, '0')}`, `US-${String((w - 1) * width + ((k + 1) % width) + 1).padStart(3, '0')}`];
      stories.push({ id, title: `Story ${id}`, description: `Do ${id}.`, acceptanceCriteria: ['It works'], priority: stories.length + 1, passes: false, notes: '', ...(deps.length ? { dependsOn: deps } : {}) });
    }
  }
  return `${JSON.stringify({ projectName: 'Bench', branchName: FEATURE, description: 'A bench feature.', userStories: stories }, null, 2)}\n`;
}

function makeRepo(name, prd, files = 0) {
  const base = path.join(tmp, name);
  const repo = path.join(base, 'repo');
  mkdirSync(path.join(repo, 'src'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Bench');
  git(repo, 'config', 'user.email', 'bench@example.invalid');
  git(repo, 'config', 'commit.gpgsign', 'false');
  writeFileSync(path.join(repo, '.git', 'info', 'exclude'), '.ralph/\n');
  writeFileSync(path.join(repo, 'prd.json'), prd);
  writeFileSync(path.join(repo, 'progress.txt'), '# Ralph Progress Log\nStarted: 2026-01-01\n---\n\n## Codebase Patterns\n- Keep it small\n\n---\n\n');
  writeFileSync(path.join(repo, 'src', 'index.ts'), 'export {};\n');
  for (let i = 0; i < files; i++) {
    const dir = path.join(repo, 'src', `m${i % 50}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'initial');
  git(repo, 'checkout', '-q', '-b', FEATURE);
  return repo;
}

const AGENT = `node ${JSON.stringify(FAKE)} "\${promptFile}"`;
const agentEnv = { ...process.env, FAKE_AGENT_MODE: 'sleep', FAKE_AGENT_DELAY_MS: String(AGENT_MS) };

function runToEnd(repo, parallel, { agent = AGENT, env = agentEnv } = {}) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'run', '--agent-command', agent, '--parallel', String(parallel), '--loop', '1000'], { cwd: repo, encoding: 'utf8', env });
  const ms = performance.now() - t0;
  if (r.status !== 0) {
    throw new Error(`run --parallel ${parallel} exited ${r.status}:\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
  }
  return ms;
}

/** Every story passes, its feat: commit is reachable, its learning is in progress.txt once. */
function verify(repo, ids) {
  const prd = JSON.parse(readFileSync(path.join(repo, 'prd.json'), 'utf8'));
  const failing = prd.userStories.filter((s) => !s.passes).map((s) => s.id);
  const subjects = git(repo, 'log', '--format=%s', FEATURE).split('\n');
  const progress = readFileSync(path.join(repo, 'progress.txt'), 'utf8');
  const problems = [];
  if (failing.length > 0) problems.push(`not passing: ${failing.join(', ')}`);
  for (const id of ids) {
    if (!subjects.some((s) => s.startsWith(`feat: ${id} `))) problems.push(`no feat commit of ${id} on ${FEATURE}`);
    const headings = progress.split(new RegExp(`^## .* - ${id}\\b`, 'm')).length - 1;
    if (headings !== 1) problems.push(`${id}: ${headings} progress entries (want 1)`);
  }
  if (git(repo, 'status', '--porcelain') !== '') problems.push('the main tree is dirty');
  return problems;
}

/** Worktrees of the repository holding commits the feature branch lacks, and whether parallel.json lists each. */
function unlistedWork(repo) {
  const state = existsSync(path.join(repo, '.ralph', 'parallel.json')) ? JSON.parse(readFileSync(path.join(repo, '.ralph', 'parallel.json'), 'utf8')) : { stories: [] };
  const listed = new Set(state.stories.map((s) => s.branch));
  const out = [];
  for (const line of git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/').split('\n')) {
    if (!line || line === FEATURE || line === 'main') continue;
    const ahead = git(repo, 'rev-list', '--count', `${FEATURE}..${line}`);
    if (ahead !== '0' && !listed.has(line)) out.push(`${line} (${ahead} commits)`);
  }
  return out;
}

/**
 * The git calls of a run, from a trace2 folder (one file per git process): per command (its name
 * and first operand, e.g. "worktree add"), how many and how long (git's own time, from its start
 * to its exit; starting the process is not counted).
 */
function gitProfile(dir) {
  const byCommand = new Map();
  for (const file of readdirSync(dir)) {
    let argv;
    let seconds;
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line);
      if (e.event === 'start' && !argv) argv = e.argv;
      if (e.event === 'exit' && seconds === undefined) seconds = e.t_abs;
    }
    // Child processes of git (e.g. the index-pack of a checkout) are timed inside their parent.
    if (!argv || seconds === undefined || argv[0] !== 'git') continue;
    const words = argv.slice(1).filter((a) => !a.startsWith('-'));
    const key = words[0] === 'worktree' ? `worktree ${words[1]}` : (words[0] ?? argv.slice(1).join(' '));
    const entry = byCommand.get(key) ?? { calls: 0, ms: 0 };
    entry.calls += 1;
    entry.ms += seconds * 1000;
    byCommand.set(key, entry);
  }
  return [...byCommand.entries()].sort((a, b) => b[1].ms - a[1].ms);
}

const ids = (n) => Array.from({ length: n }, (_, i) => `US-${String(i + 1).padStart(3, '0')}`);

try {
  if (args.includes('--profile')) {
    const filesAt = args.indexOf('--files');
    const FILES = filesAt >= 0 ? Math.max(0, Number(args[filesAt + 1]) || 0) : 5000;
    const STORIES = 4;
    const repo = makeRepo('profile', dagPrd(1, STORIES), FILES);
    const trace = path.join(tmp, 'trace2');
    mkdirSync(trace);
    // The agent's own git calls (add, commit) are its work, not the runner's: not traced.
    const agent = `env -u GIT_TRACE2_EVENT ${AGENT}`;
    const ms = runToEnd(repo, 1, { agent, env: { ...agentEnv, GIT_TRACE2_EVENT: trace } });
    const problems = verify(repo, ids(STORIES));
    const profile = gitProfile(trace);
    const gitMs = profile.reduce((n, [, e]) => n + e.ms, 0);
    const calls = profile.reduce((n, [, e]) => n + e.calls, 0);
    console.log(`one story's overhead, ${STORIES} stories one at a time, a ${AGENT_MS / 1000} s pretend agent, ${FILES + 3} tracked files:`);
    console.log(`  ${(ms / 1000).toFixed(1)} s in all: ${((ms / STORIES - AGENT_MS) / 1000).toFixed(2)} s a story beyond its agent's 2 s sleep; git ${(gitMs / STORIES / 1000).toFixed(2)} s a story in ${(calls / STORIES).toFixed(1)} calls`);
    // The pretend agent's own time (its Node start, its git add and commit of a 5,000-file tree) is
    // the agent's work, not Ralph's: runs.jsonl records each agent process's duration.
    const agentMs = readFileSync(path.join(repo, '.ralph', 'runs.jsonl'), 'utf8').trim().split('\n').reduce((n, l) => n + (JSON.parse(l).durationMs ?? 0), 0);
    console.log(`  the serial loop's own overhead (--parallel 1: the whole run minus each agent process's recorded duration, the CLI's start included; the parallel engine's is bench-worktrees.mjs): ${((ms - agentMs) / STORIES / 1000).toFixed(2)} s a story (target < 0.5 s)`);
    for (const [command, e] of profile) {
      console.log(`    git ${command.padEnd(16)} ${String(e.calls).padStart(4)} calls ${String(Math.round(e.ms / STORIES)).padStart(6)} ms a story`);
    }
    if (problems.length > 0) {
      console.log(`  NOT every story done: ${problems.join('; ')}`);
      process.exitCode = 1;
    }
  }
  if (both || args.includes('--speedup')) {
    const prd = dagPrd(6, 4);
    const four = makeRepo('p4', prd);
    const one = makeRepo('p1', prd);
    const ms4 = runToEnd(four, 4);
    const ms1 = runToEnd(one, 1);
    const problems = [...verify(four, ids(24)).map((p) => `parallel 4: ${p}`), ...verify(one, ids(24)).map((p) => `parallel 1: ${p}`)];
    const ratio = ms4 / ms1;
    console.log(`parallel run, 24 stories in 6 waves of 4, a ${AGENT_MS / 1000} s pretend agent (whole process, node dist/cli.js run):`);
    console.log(`  --parallel 1 (baseline): ${(ms1 / 1000).toFixed(1)} s (${(ms1 / 24 / 1000).toFixed(2)} s a story; agent ${AGENT_MS / 1000} s + overhead ${((ms1 / 24 - AGENT_MS) / 1000).toFixed(2)} s)`);
    console.log(`  --parallel 4:            ${(ms4 / 1000).toFixed(1)} s = ${ratio.toFixed(2)} × baseline (target ≤ 0.40; ideal 6 waves / 24 = 0.25)`);
    console.log(`  every story passing, every feat: commit reachable, every learning once: ${problems.length === 0 ? 'yes' : `NO — ${problems.join('; ')}`}`);
    if (problems.length > 0) process.exitCode = 1;
  }
  if (both || killsAt >= 0) {
    let lost = 0;
    let unlisted = 0;
    const delays = [];
    for (let k = 0; k < KILLS; k++) {
      const repo = makeRepo(`kill-${k}`, dagPrd(3, 4));
      const child = spawn(process.execPath, [CLI, 'run', '--agent-command', AGENT, '--parallel', '3', '--loop', '1000'], { cwd: repo, env: { ...agentEnv, FAKE_AGENT_DELAY_MS: '700' }, stdio: 'ignore' });
      // Anywhere from before the first agent starts to the middle of the last wave's merges.
      const delay = 200 + Math.floor(Math.random() * 6000);
      delays.push(delay);
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.on('exit', r)));
      // SIGKILL leaves the agents it started running (each in its own process group): let them end,
      // as they would while a user reopens the workspace.
      await new Promise((r) => setTimeout(r, 1000));
      const leftover = unlistedWork(repo);
      unlisted += leftover.length;
      if (leftover.length > 0) console.log(`  kill ${k + 1} after ${delay} ms: unlisted work ${leftover.join(', ')}`);
      runToEnd(repo, 3);
      const problems = verify(repo, ids(12));
      lost += problems.length;
      if (problems.length > 0) console.log(`  kill ${k + 1} after ${delay} ms, then resumed: ${problems.join('; ')}`);
      rmSync(path.dirname(repo), { recursive: true, force: true });
    }
    console.log(`parallel run killed (SIGKILL) ${KILLS} times at random moments (${Math.min(...delays)}–${Math.max(...delays)} ms in), then run again to the end (12 stories, --parallel 3):`);
    console.log(`  problems after resuming (a story not passing, a feat: commit or a learning lost or doubled): ${lost}`);
    console.log(`  branches holding unmerged commits not listed in .ralph/parallel.json right after a kill: ${unlisted}`);
    if (lost > 0 || unlisted > 0) process.exitCode = 1;
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
