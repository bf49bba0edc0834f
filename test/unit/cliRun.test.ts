/**
 * `ralph-workbench run`, whole process (node dist/cli.js run) on real temporary repositories, with
 * the pretend agent CLI (test/fixtures/fake-agent.mjs, one mode per story through FAKE_AGENT_PLAN):
 * the status lines, the exit status, the logs, runs.jsonl, SIGTERM, a SIGKILL and the resume after
 * it, bad input.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PARALLEL_STATE_FILE, type ParallelState } from '../../src/core/parallel/state';
import { parseRuns } from '../../src/core/runs/runs';
import { copyBuiltCli } from './helpers';
import { cleanRepos, git, makeRepo, passing, readJson } from './parallelRepo';

const FAKE = path.resolve(__dirname, '../fixtures/fake-agent.mjs');
const CHECK = `node -e "process.exit(require('fs').existsSync('CHECK_FAILS')?1:0)"`;
const AGENT = `node ${JSON.stringify(FAKE)} "\${promptFile}"`;
const count = (text: string, needle: string): number => text.split(needle).length - 1;

describe('CLI run (whole process: node dist/cli.js run)', function () {
  this.timeout(180_000);
  const built = path.resolve(__dirname, '../../dist/cli.js');
  let cli = '';

  before(function () {
    assert.ok(existsSync(built), 'dist/cli.js is missing: run `npm run build` first (npm test does) — the whole-process CLI tests need it');
    const dir = path.dirname(makeRepo());
    cli = copyBuiltCli(dir);
  });
  after(cleanRepos);

  const env = (plan: Record<string, string>, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ ...process.env, FAKE_AGENT_PLAN: JSON.stringify(plan), ...extra });
  const run = (root: string, args: string[], plan: Record<string, string> = {}) =>
    spawnSync(process.execPath, [cli, 'run', '--agent-command', AGENT, ...args], { cwd: root, encoding: 'utf8', env: env(plan), timeout: 170_000 });

  it('two stories succeed, one conflicts, one fails its check: status lines, exit 1, the Needs You items on stderr, logs and runs.jsonl', () => {
    const root = makeRepo();
    const r = run(root, ['--parallel', '4', '--check', CHECK], { 'US-001': 'pass', 'US-002': 'conflict', 'US-003': 'conflict', 'US-004': 'break-check' });
    assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
    for (const id of ['US-001', 'US-002', 'US-003', 'US-004']) {
      assert.match(r.stdout, new RegExp(`▶ ${id} — Story ${id}: started \\(\\d+/10, wave 1\\) in .* on ralph/demo-${id}; log \\.ralph/logs/`));
    }
    assert.match(r.stdout, /✓ US-001: merged \([0-9a-f]{8}\)/);
    assert.match(r.stdout, /✗ US-004: not merged — check-failed/);
    assert.match(r.stdout, /Stopped: 2 stories need you/);
    // The items in the order they arose (which merge came first is the machine's timing).
    assert.match(r.stderr, /2 stories need you:\n/);
    assert.match(r.stderr, /\n {2}US-00[23] needs you: its merge into the feature branch conflicted/);
    assert.match(r.stderr, /\n {2}US-004 needs you: .*check/);
    const merged = passing(root);
    assert.equal(merged.length, 2);
    assert.ok(merged.includes('US-001'));
    const runs = parseRuns(readFileSync(path.join(root, '.ralph', 'runs.jsonl'), 'utf8')).runs;
    assert.equal(runs.length, 4);
    for (const line of runs) {
      assert.ok(existsSync(path.join(root, '.ralph', 'logs', `${line.loopId}-${line.storyId}-1.log`)), `log of ${line.storyId}`);
    }
    assert.deepEqual(runs.map((l) => l.parallel?.merge).sort(), ['check-failed', 'conflict', 'merged', 'merged']);
    const progress = readFileSync(path.join(root, 'progress.txt'), 'utf8');
    for (const id of merged) {
      assert.equal(count(progress, `## `) >= 1, true);
      assert.match(progress, new RegExp(`- ${id}`));
    }
    assert.equal(git(root, 'status', '--porcelain'), '');
  });

  it('--json prints one JSON object per event; every story passing exits 0', () => {
    const root = makeRepo();
    const r = run(root, ['--parallel', '2', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; storyId?: string; stop?: { reason: string } });
    assert.equal(events.filter((e) => e.kind === 'started').length, 4);
    assert.equal(events.filter((e) => e.kind === 'merged').length, 4);
    assert.equal(events.at(-1)?.stop?.reason, 'all-pass');
    assert.deepEqual(passing(root).sort(), ['US-001', 'US-002', 'US-003', 'US-004']);
  });

  it('SIGTERM ends the agents and exits 0 with the queue saved; a SIGKILL mid-run loses nothing and the next run resumes', async () => {
    const root = makeRepo();
    const ready = path.join(path.dirname(root), 'ready');
    mkdirSync(ready);
    const child = spawn(process.execPath, [cli, 'run', '--agent-command', AGENT, '--parallel', '2'], {
      cwd: root,
      env: env({ 'US-001': 'hang', 'US-002': 'hang' }, { FAKE_AGENT_READY_FILE: path.join(ready, 'agent') }),
    });
    const out = collect(child);
    await until(() => count(out.stdout, '▶ ') === 2 && existsSync(path.join(ready, 'agent')), 60_000, 'two agents running');
    child.kill('SIGTERM');
    const code = await exitOf(child);
    assert.equal(code, 0, `${out.stdout}\n${out.stderr}`);
    assert.match(out.stderr, /SIGTERM: stopping/);
    assert.match(out.stdout, /Stopped: you stopped the loop/);
    const state = readJson<ParallelState>(path.join(root, PARALLEL_STATE_FILE));
    assert.deepEqual(state.stories.map((s) => s.state), ['interrupted', 'interrupted']);

    // A run killed outright while agents work: the next run resumes and finishes every story.
    const killed = spawn(process.execPath, [cli, 'run', '--agent-command', AGENT, '--parallel', '2'], { cwd: root, env: env({}, { FAKE_AGENT_MODE: 'sleep', FAKE_AGENT_DELAY_MS: '1500' }) });
    const kOut = collect(killed);
    await until(() => count(kOut.stdout, '✓ ') >= 1, 90_000, 'a first merge');
    killed.kill('SIGKILL');
    await exitOf(killed);
    const again = run(root, ['--parallel', '2']);
    assert.equal(again.status, 0, `${again.stdout}\n${again.stderr}`);
    assert.deepEqual(passing(root).sort(), ['US-001', 'US-002', 'US-003', 'US-004']);
    const progress = readFileSync(path.join(root, 'progress.txt'), 'utf8');
    for (const id of ['US-001', 'US-002', 'US-003', 'US-004']) {
      assert.equal(count(progress, `## `) >= 4, true);
      assert.equal(git(root, 'log', '--format=%s', 'HEAD').split('\n').filter((s) => s.startsWith(`feat: ${id} `)).length >= 1, true, `the feat commit of ${id} is on the feature branch`);
    }
    const left = readdirSync(path.join(path.dirname(root), '.repo-ralph-worktrees')).filter((n) => !n.startsWith('.'));
    assert.deepEqual(left, [], 'every merged worktree removed');
  });

  it('a second SIGINT during the first stop\'s grace ends at once, and takes the agents with it: none is left running', async function () {
    if (process.platform !== 'linux') {
      this.skip(); // the process table is read from /proc
    }
    const root = makeRepo();
    const pids = path.join(path.dirname(root), 'agent-pids');
    // An agent that ignores SIGTERM (so the first stop waits out its grace), and says who it is.
    const stubborn = path.join(path.dirname(root), 'stubborn-agent.sh');
    writeFileSync(stubborn, `#!/bin/sh\ntrap '' TERM\necho $$ >> ${JSON.stringify(pids)}\nsleep 120\n`, { mode: 0o755 });
    const child = spawn(process.execPath, [cli, 'run', '--agent-command', stubborn, '--parallel', '2'], { cwd: root, env: process.env });
    const out = collect(child);
    const agents = (): number[] => (existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : []);
    await until(() => count(out.stdout, '▶ ') === 2 && agents().length === 2, 60_000, 'two agents running');
    const groups = agents().map(groupOf);
    child.kill('SIGINT');
    await until(() => out.stderr.includes('SIGINT: stopping'), 30_000, 'the first stop');
    child.kill('SIGINT');
    assert.equal(await exitOf(child), 130, `${out.stdout}\n${out.stderr}`);
    await until(() => groups.every((g) => processesOfGroup(g).length === 0), 10_000, "the agents' processes to end");
  });

  it('refuses what it cannot run: no git repository, a bad option, a second run of the same workspace', async () => {
    const root = makeRepo();
    const bad = spawnSync(process.execPath, [cli, 'run', '--parallel', '0'], { cwd: root, encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--parallel needs a whole number of at least 1 \(got "0"\)/);
    const plain = path.join(path.dirname(root), 'plain');
    mkdirSync(plain);
    writeFileSync(path.join(plain, 'prd.json'), readFileSync(path.join(root, 'prd.json')));
    const noGit = spawnSync(process.execPath, [cli, 'run', '--agent-command', AGENT], { cwd: plain, encoding: 'utf8', env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(plain) } });
    assert.equal(noGit.status, 1);
    assert.match(noGit.stderr, /not a git repository.*git worktrees/);

    const first = spawn(process.execPath, [cli, 'run', '--agent-command', AGENT], { cwd: root, env: env({ 'US-001': 'hang', 'US-002': 'hang', 'US-003': 'hang', 'US-004': 'hang' }) });
    const out = collect(first);
    await until(() => out.stdout.includes('▶ '), 60_000, 'the first run to start an agent');
    const second = spawnSync(process.execPath, [cli, 'run', '--agent-command', AGENT], { cwd: root, encoding: 'utf8' });
    assert.equal(second.status, 1);
    assert.match(second.stderr, /Another run is using this workspace \(the ralph-workbench run command, process \d+/);
    first.kill('SIGINT');
    assert.equal(await exitOf(first), 0);
  });
});

function collect(child: ChildProcess): { stdout: string; stderr: string } {
  const out = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  return out;
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `pid (comm) state ppid pgrp …` of /proc/<pid>/stat, from the state on (comm may hold spaces and parentheses). */
const statFields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

const groupOf = (pid: number): number => Number(statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'))[2]);

/** The live (not zombie) processes of a process group, from /proc. */
function processesOfGroup(pgid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const [state, , pgrp] = statFields(stat);
    if (Number(pgrp) === pgid && state !== 'Z') {
      found.push(Number(name));
    }
  }
  return found;
}
