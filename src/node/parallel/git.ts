/**
 * git for the parallel engine: one small runner over `execFile` (no shell, arguments as given),
 * because the worktree and merge steps need git's exit codes and output exactly (merge-tree says
 * "conflict" with exit 1) and run in several working trees of one repository.
 */
import { execFile } from 'node:child_process';

export interface GitResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A refusal or failure of the parallel engine, with the message a user reads. */
export class ParallelError extends Error {
  constructor(
    readonly code: 'not-a-repo' | 'git-too-old' | 'detached-head' | 'dirty' | 'folder-exists' | 'bad-branch' | 'bad-story-id' | 'unmerged' | 'locked' | 'state' | 'git',
    message: string,
  ) {
    super(message);
    this.name = 'ParallelError';
  }
}

/** git's environment for the runner: no pager, no prompt for credentials, no editor (this runs unattended), git's messages in English. */
export function gitEnv(env?: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_PAGER: 'cat', LC_ALL: 'C', ...env };
}

/** Runs git in `cwd`, with `env` added to its environment; resolves with the exit code (never rejects for a non-zero exit). */
export function git(cwd: string, args: readonly string[], input?: string, env?: Readonly<Record<string, string>>): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd, maxBuffer: 64 * 1024 * 1024, env: gitEnv(env) },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new ParallelError('git', `git could not run (${error.code ?? error.message}): is git installed and on PATH?`));
          return;
        }
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
    if (input !== undefined) {
      child.stdin?.end(input);
    }
  });
}

/** Runs git and returns its trimmed stdout; a non-zero exit throws with git's first line of complaint. */
export async function gitOk(cwd: string, args: readonly string[], what: string, env?: Readonly<Record<string, string>>, input?: string): Promise<string> {
  const r = await git(cwd, args, input, env);
  if (r.code !== 0) {
    throw new ParallelError('git', `${what}: git ${args[0]} failed: ${firstLine(r.stderr || r.stdout)}`);
  }
  return r.stdout.trim();
}

/** git's reason in its output: the first `fatal:` or `error:` line (not a progress line such as "Preparing worktree"), else the first line. */
export function firstLine(s: string): string {
  const lines = s.split(/\r?\n/).map((l) => l.trim());
  const reason = lines.find((l) => /^(?:fatal|error):/.test(l)) ?? lines.find((l) => l !== '');
  return reason?.replace(/^(?:fatal|error):\s*/, '').trim() || 'no message';
}

/** The top folder of the repository `folder` is in, or undefined when it is in none (or git is missing). */
export async function topOf(folder: string): Promise<string | undefined> {
  const r = await git(folder, ['rev-parse', '--show-toplevel']).catch(() => undefined);
  return r?.code === 0 ? r.stdout.trim() || undefined : undefined;
}

/** git's version as [major, minor], or undefined when git is missing. */
export async function gitVersion(cwd: string): Promise<[number, number] | undefined> {
  try {
    const r = await git(cwd, ['--version']);
    const m = /(\d+)\.(\d+)/.exec(r.stdout);
    return m ? [Number(m[1]), Number(m[2])] : undefined;
  } catch {
    return undefined;
  }
}

export function atLeast(v: readonly [number, number], major: number, minor: number): boolean {
  return v[0] > major || (v[0] === major && v[1] >= minor);
}

/** The content of `path` at `rev`, or undefined when it has none there. */
export async function showFile(cwd: string, rev: string, path: string): Promise<string | undefined> {
  const r = await git(cwd, ['show', `${rev}:${path}`]);
  return r.code === 0 ? r.stdout : undefined;
}

/**
 * The contents of several `rev:path` at once (one `git cat-file --batch`), each undefined when it
 * has none there; a path git's line-based input cannot carry is read on its own.
 */
export async function showFiles(cwd: string, specs: readonly { readonly rev: string; readonly path: string }[]): Promise<(string | undefined)[]> {
  if (specs.some((s) => /[\n\r]/.test(s.rev + s.path))) {
    return Promise.all(specs.map((s) => showFile(cwd, s.rev, s.path)));
  }
  const out = await new Promise<Buffer | undefined>((resolve) => {
    const child = execFile('git', ['cat-file', '--batch'], { cwd, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024, env: gitEnv() }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    );
    child.stdin?.end(specs.map((s) => `${s.rev}:${s.path}\n`).join(''));
  });
  if (out === undefined) {
    return Promise.all(specs.map((s) => showFile(cwd, s.rev, s.path)));
  }
  // Each answer: `<oid> <type> <size>\n<contents>\n`, or `<name> missing\n` (or `ambiguous`).
  const texts: (string | undefined)[] = [];
  let at = 0;
  for (let k = 0; k < specs.length; k++) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) {
      return Promise.all(specs.map((s) => showFile(cwd, s.rev, s.path)));
    }
    const header = out.toString('utf8', at, eol);
    const m = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(header);
    if (!m) {
      texts.push(undefined);
      at = eol + 1;
      continue;
    }
    const size = Number(m[2]);
    texts.push(m[1] === 'blob' ? out.toString('utf8', eol + 1, eol + 1 + size) : undefined);
    at = eol + 1 + size + 1;
  }
  return texts;
}

/** Commits on `branch` not reachable from `onto`, newest first, as `<sha> <subject>`. */
export async function commitsNotOn(cwd: string, branch: string, onto: string): Promise<{ sha: string; subject: string }[]> {
  const out = await gitOk(cwd, ['log', '--format=%H %s', `${onto}..${branch}`, '--'], 'Listing the commits of a worktree');
  return out === ''
    ? []
    : out.split('\n').map((l) => {
        const at = l.indexOf(' ');
        return { sha: l.slice(0, at), subject: l.slice(at + 1) };
      });
}
