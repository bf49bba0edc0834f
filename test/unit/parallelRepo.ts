/** Temporary git repositories for the parallel engine's tests, and a pretend agent's work in a worktree. */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setPassesByIdEdits } from '../../src/core/prd/graphEdits';
import { applyEdits } from '../../src/core/textEdit';
import { makePrd } from './helpers';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export const FEATURE = 'ralph/demo';
export const STORY_IDS = ['US-001', 'US-002', 'US-003', 'US-004'];

export const PROGRESS = '# Ralph Progress Log\nStarted: 2026-01-01\n---\n\n## Codebase Patterns\n- Keep handlers small\n\n---\n\n';

const made: string[] = [];

/** The environment variables `keys` as they are now; the returned function puts them back (set or unset). */
export function saveEnv(...keys: string[]): () => void {
  const saved = keys.map((key) => [key, process.env[key]] as const);
  return () => {
    for (const [key, value] of saved) {
      if (value === undefined) {
        delete process.env[key];
      } else {
        process.env[key] = value;
      }
    }
  };
}

/** Removes every repository made by `makeRepo` (call in an `after` hook). */
export function cleanRepos(): void {
  for (const dir of made.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A fresh repository in its own temporary folder (`<tmp>/repo`, so the default worktree root
 * `<tmp>/.repo-ralph-worktrees` is private to it) on the feature branch, with prd.json,
 * progress.txt, AGENTS.md and a few source files committed.
 */
export function makeRepo(prd = makePrd(STORY_IDS.map((id) => ({ id })), { branchName: FEATURE })): string {
  const base = mkdtempSync(path.join(tmpdir(), 'ralph-par-'));
  made.push(base);
  const root = path.join(base, 'repo');
  mkdirSync(path.join(root, 'src'), { recursive: true });
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.name', 'Test');
  git(root, 'config', 'user.email', 'test@example.invalid');
  git(root, 'config', 'commit.gpgsign', 'false');
  writeFileSync(path.join(root, '.git', 'info', 'exclude'), '.ralph/\n');
  writeFileSync(path.join(root, 'prd.json'), prd);
  writeFileSync(path.join(root, 'progress.txt'), PROGRESS);
  writeFileSync(path.join(root, 'AGENTS.md'), '# Agents\n\n## Module A\n- a note\n\n## Module B\n- b note\n');
  writeFileSync(path.join(root, 'src', 'shared.ts'), 'export const value = 1;\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'initial');
  git(root, 'checkout', '-q', '-b', FEATURE);
  return root;
}

export interface AgentWork {
  /** Files written (relative path → content). */
  readonly files?: Record<string, string>;
  /** Appended to AGENTS.md's section of this name. */
  readonly agentsNote?: { readonly after: string; readonly line: string };
  /** Other stories the agent (wrongly) marks as passing. */
  readonly alsoPasses?: readonly string[];
  /** Skip the `feat:` commit (an agent cut off). */
  readonly noCommit?: boolean;
  readonly learning?: string;
  /** The folder of prd.json and progress.txt (default: the top of the repository). */
  readonly memoryDir?: string;
}

/** What a Ralph agent does in its worktree: the code, passes in prd.json, a progress entry, the `feat:` commit. */
export function agentWork(folder: string, storyId: string, work: AgentWork = {}): void {
  for (const [rel, content] of Object.entries(work.files ?? {})) {
    mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
    writeFileSync(path.join(folder, rel), content);
  }
  if (work.agentsNote) {
    const file = path.join(folder, 'AGENTS.md');
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf('\n', text.indexOf(work.agentsNote.after)) + 1;
    writeFileSync(file, `${text.slice(0, at)}${work.agentsNote.line}\n${text.slice(at)}`);
  }
  const memory = path.join(folder, work.memoryDir ?? '');
  const prdFile = path.join(memory, 'prd.json');
  let prd = readFileSync(prdFile, 'utf8');
  for (const id of [storyId, ...(work.alsoPasses ?? [])]) {
    const r = setPassesByIdEdits(prd, id, true);
    if (!r.ok) {
      throw new Error(r.message);
    }
    prd = applyEdits(prd, r.edits);
  }
  writeFileSync(prdFile, prd);
  appendFileSync(
    path.join(memory, 'progress.txt'),
    `## 2026-01-02 10:00 - ${storyId}\n- Implemented ${storyId}\n- **Learnings for future iterations:**\n  - ${work.learning ?? `learning of ${storyId}`}\n---\n\n`,
  );
  if (!work.noCommit) {
    git(folder, 'add', '-A');
    git(folder, 'commit', '-q', '-m', `feat: ${storyId} - Story ${storyId}`);
  }
}

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** The stories that pass in a prd.json. */
export function passing(root: string): string[] {
  return readJson<{ userStories: { id: string; passes: boolean }[] }>(path.join(root, 'prd.json'))
    .userStories.filter((s) => s.passes)
    .map((s) => s.id);
}
