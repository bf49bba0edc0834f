/**
 * Helpers of the agent-iteration suites (runs.test.ts): a git working copy of the demo that is put
 * back after every test, the fake agent (test/fixtures/fake-agent.mjs) as the custom agent command,
 * the run commands with their results, runs.jsonl, and the terminals the runner opens.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunRecord } from '../../src/core/runs/runs';
import { api, extension, isStory, storyId, waitFor, waitForTree, workspaceFolder } from './helpers';

/** What the run commands resolve to (undefined when the run failed with an error message). */
export interface RunResult {
  readonly stop: { readonly reason: string; readonly message: string; readonly details: readonly string[] };
  readonly iterations: readonly { iteration: number; outcome: string; progress: boolean; falseComplete: boolean; notes: readonly string[] }[];
}

export const GIT_IDENTITY = ['-c', 'user.name=Ralph Test', '-c', 'user.email=ralph-test@example.invalid', '-c', 'commit.gpgsign=false'];

export function root(): string {
  return workspaceFolder().uri.fsPath;
}

export function ws(...parts: string[]): string {
  return path.join(root(), ...parts);
}

export function git(...args: string[]): string {
  return execFileSync('git', [...GIT_IDENTITY, ...args], { cwd: root(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export function readJson<T = unknown>(rel: string): T {
  return JSON.parse(fs.readFileSync(ws(rel), 'utf8')) as T;
}

export interface PrdStory {
  id: string;
  title: string;
  priority: number;
  passes: boolean;
  acceptanceCriteria: string[];
  blockedBy?: string[];
}

export function prdStories(): PrdStory[] {
  return readJson<{ userStories: PrdStory[] }>('prd.json').userStories;
}

export function runsJsonl(): RunRecord[] {
  const file = ws('.ralph', 'runs.jsonl');
  if (!fs.existsSync(file)) {
    return [];
  }
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text === '' || text.endsWith('\n'), 'runs.jsonl should end with a newline');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l) as RunRecord;
      } catch {
        assert.fail(`runs.jsonl line ${i + 1} is not JSON: ${l}`);
      }
    });
}

/** The absolute path of the fake agent in this repository (the extension under development). */
export function fakeAgentPath(): string {
  return path.join(extension().extensionUri.fsPath, 'test', 'fixtures', 'fake-agent.mjs');
}

export interface AgentOptions {
  readonly mode?: 'pass' | 'fail' | 'early-complete' | 'no-progress' | 'hang' | 'delete-prd';
  readonly delayMs?: number;
  /** hang mode: the file the agent writes once it waits forever. */
  readonly readyFile?: string;
  /** Also pass `--story ${storyId}` (exercises the quoting of story ids on the command line). */
  readonly storyArg?: boolean;
  /** Real agent output the agent prints as its receipt (a file under test/fixtures/agent-output). */
  readonly receipt?: string;
}

/**
 * Makes the fake agent the workspace's agent. The mode goes on the command line itself
 * (`FAKE_AGENT_MODE=… node …`): the terminal's environment is not the extension host's.
 */
export async function useFakeAgent(options: AgentOptions = {}): Promise<string> {
  const env = [`FAKE_AGENT_MODE=${options.mode ?? 'pass'}`];
  if (options.delayMs) {
    env.push(`FAKE_AGENT_DELAY_MS=${options.delayMs}`);
  }
  if (options.readyFile) {
    env.push(`FAKE_AGENT_READY_FILE="${options.readyFile}"`);
  }
  if (options.receipt) {
    env.push(`FAKE_AGENT_RECEIPT="${path.join(extension().extensionUri.fsPath, 'test', 'fixtures', 'agent-output', options.receipt)}"`);
  }
  const command = `${env.join(' ')} node "${fakeAgentPath()}" \${promptFile}${options.storyArg ? ' --story ${storyId}' : ''}`;
  const c = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
  await c.update('agent.preset', 'custom', vscode.ConfigurationTarget.Workspace);
  await c.update('agent.command', command, vscode.ConfigurationTarget.Workspace);
  const check = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
  assert.equal(check.get('agent.command'), command, 'the agent command setting did not take effect');
  return command;
}

export async function resetSettings(): Promise<void> {
  const c = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
  for (const key of ['agent.preset', 'agent.command', 'loop.noProgressLimit', 'loop.failureLimit', 'git.manageBranch', 'progress.autoCompact', 'terminals.keepFinished', 'pinPath', 'prdPath', 'budget.maxCostPerLoop', 'budget.maxCostPerStory', 'budget.maxTokensPerLoop']) {
    if (c.inspect(key)?.workspaceValue !== undefined) {
      await c.update(key, undefined, vscode.ConfigurationTarget.Workspace);
    }
  }
}

/** Terminals opened while `fn` runs, with the time (ms after the call) each appeared. */
export async function watchTerminals<T>(fn: () => Thenable<T>): Promise<{ value: T; opened: { name: string; atMs: number; terminal: vscode.Terminal }[]; ms: number }> {
  const opened: { name: string; atMs: number; terminal: vscode.Terminal }[] = [];
  const t0 = performance.now();
  const sub = vscode.window.onDidOpenTerminal((t) => opened.push({ name: t.name, atMs: performance.now() - t0, terminal: t }));
  try {
    const value = await fn();
    return { value, opened, ms: performance.now() - t0 };
  } finally {
    sub.dispose();
  }
}

/** Runs a Ralph command and returns its result (asserting the command did not fail with an error). */
export async function runCommand(command: string, ...args: unknown[]): Promise<RunResult> {
  const result = await vscode.commands.executeCommand<RunResult | undefined>(command, ...args);
  assert.ok(result, `${command} resolved to undefined: the run failed with an error message (see the Ralph Workbench log)`);
  return result;
}

export function ralphTerminals(): vscode.Terminal[] {
  return vscode.window.terminals.filter((t) => t.name.startsWith('Ralph:'));
}

/** Stops a run left over by a failed test and closes the agents' terminals. */
export async function stopAndCloseTerminals(): Promise<void> {
  const a = await api();
  if (a.runnerState().running) {
    await vscode.commands.executeCommand('ralph.stopNow');
    await waitFor('the runner to stop after "Stop now"', () => !a.runnerState().running, 15_000);
  }
  const closing = ralphTerminals();
  for (const t of closing) {
    t.dispose();
  }
  await waitFor('the agents\' terminals to close', () => ralphTerminals().length === 0, 10_000, () => ralphTerminals().map((t) => t.name));
}

/** Command lines of the processes running the fake agent (Linux /proc), to check that none is left behind. */
export function fakeAgentProcesses(needle: string): string[] {
  if (process.platform !== 'linux') {
    return [];
  }
  const out: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes('fake-agent.mjs') && cmd.includes(needle)) {
        out.push(`${pid}: ${cmd}`);
      }
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** State of the git working copy of the demo, captured once per suite and restored after every test. */
export interface Pristine {
  readonly baseSha: string;
  readonly baseBranch: string;
  readonly prd: string;
  readonly progress: string;
}

/**
 * Makes sure the workspace is a git repository with the demo committed on `main` (the launcher
 * normally does this; a workspace without one gets it here), and returns what to restore.
 */
export function ensureGitWorkspace(): Pristine {
  if (!fs.existsSync(ws('.git'))) {
    execFileSync('git', [...GIT_IDENTITY, 'init', '-q', '-b', 'main'], { cwd: root() });
    git('add', '-A');
    git('commit', '-q', '-m', 'fixture');
  }
  // The suites write workspace settings to .vscode/: not a change of the user's that a run should ask about.
  const exclude = ws('.git', 'info', 'exclude');
  if (!fs.readFileSync(exclude, 'utf8').includes('.vscode/')) {
    fs.appendFileSync(exclude, '\n.vscode/\n');
  }
  const status = git('status', '--porcelain', '--untracked-files=no');
  assert.equal(status, '', `the demo working copy should be clean before the run suites, git status:\n${status}`);
  return {
    baseSha: git('rev-parse', 'HEAD'),
    baseBranch: git('rev-parse', '--abbrev-ref', 'HEAD'),
    prd: fs.readFileSync(ws('prd.json'), 'utf8'),
    progress: fs.readFileSync(ws('progress.txt'), 'utf8'),
  };
}

/**
 * Puts the working copy back: the base branch at the base commit, no other branches, no
 * untracked or ignored files (.ralph/, archive/), except the workspace settings in .vscode/.
 */
export async function restoreWorkspace(p: Pristine, { keepSettings = true } = {}): Promise<void> {
  git('checkout', '-q', '-f', p.baseBranch);
  git('reset', '-q', '--hard', p.baseSha);
  git('clean', '-q', '-fdx', ...(keepSettings ? ['-e', '.vscode'] : []));
  for (const b of git('for-each-ref', '--format=%(refname:short)', 'refs/heads').split('\n').filter(Boolean)) {
    if (b !== p.baseBranch) {
      git('branch', '-q', '-D', b);
    }
  }
  assert.equal(fs.readFileSync(ws('prd.json'), 'utf8'), p.prd);
  await waitForTree(
    'the demo tree (12 stories, US-006 next) after restoring the working copy',
    (nodes) => nodes.length === 12 && nodes.every(isStory) && storyId(nodes[0]) === 'US-006',
  );
}

/** Writes prd.json (and commits it, so the branch step finds a clean tree) and waits for the tree. */
export async function useCustomPrd(prd: unknown, storyCount: number, { commit = true } = {}): Promise<void> {
  fs.writeFileSync(ws('prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
  if (commit) {
    git('commit', '-q', '-am', 'test: a small prd.json');
  }
  await waitForTree(`the tree to show the ${storyCount} stories of the test's prd.json`, (nodes) => nodes.length === storyCount && nodes.every(isStory));
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) {
    return NaN;
  }
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Today as YYYY-MM-DD (local time), as archive folder names use it. */
export function today(d = new Date()): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/**
 * The order a correct loop runs the stories in: each time the ready story (not passing, every
 * blocker passing) with the lowest priority, ties in file order.
 */
export function expectedRunOrder(stories: readonly PrdStory[]): string[] {
  const passing = new Set(stories.filter((s) => s.passes).map((s) => s.id));
  const order: string[] = [];
  for (;;) {
    const ready = stories.filter((s) => !passing.has(s.id) && (s.blockedBy ?? []).every((b) => passing.has(b)));
    if (ready.length === 0) {
      return order;
    }
    const next = ready.reduce((best, s) => (s.priority < best.priority ? s : best));
    order.push(next.id);
    passing.add(next.id);
  }
}
