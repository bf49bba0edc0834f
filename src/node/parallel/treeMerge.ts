/**
 * A story's merge made off the main working tree (issue 19: merges off the critical path). With
 * git ≥ 2.38, `git merge-tree --write-tree` merges the story's branch into the feature branch in
 * git's object store alone; prd.json and progress.txt are then put into that tree as the queue's
 * rules make them and the merge commit is made, both in one `git fast-import`, and one `git reset
 * --keep` moves the feature branch to it, writing only the files the merge changed. A `git merge --no-ff`
 * followed by `git commit` leaves the same commit, index and files, but reads and refreshes every
 * tracked file of the main tree several times over (a few hundred ms at 5,000 files).
 *
 * `reset --keep` is one git process: a runner killed meanwhile cannot leave the branch moved and
 * the files not (git finishes without it), and it refuses, changing nothing, when a file it would
 * write has changes of the user's or is untracked in the way.
 */
import { spawn } from 'node:child_process';
import { access } from 'node:fs/promises';
import { constants } from 'node:fs';
import * as path from 'node:path';
import { firstLine, git, gitEnv, gitOk, ParallelError } from './git';

export interface TreeMerge {
  /** The merged tree (prd.json and progress.txt as git's text merge left them, markers and all). */
  readonly tree: string;
  /** Every path with a conflict, of any kind. */
  readonly conflicted: readonly string[];
  /** Whether every conflict is a conflict of contents (not a rename, a delete, a file/folder clash…). */
  readonly contentsOnly: boolean;
}

/** git's kinds of message that leave a path's merged text in place (markers included). */
const PLAIN_MESSAGES = new Set(['Auto-merging', 'CONFLICT (contents)']);

/**
 * `git merge-tree --write-tree -z ours theirs`, parsed: undefined when git failed otherwise than
 * by a conflict (exit 1).
 */
export async function mergeTree(root: string, ours: string, theirs: string): Promise<TreeMerge | undefined> {
  const r = await git(root, ['merge-tree', '--write-tree', '-z', ours, theirs]);
  if (r.code !== 0 && r.code !== 1) {
    return undefined;
  }
  // <tree> NUL, then (on a conflict) `<mode> <oid> <stage>\t<path>` NUL each, an empty field, and
  // the messages: <number of paths> NUL <path>… NUL <kind> NUL <message> NUL.
  const parts = r.stdout.split('\0');
  const tree = parts[0];
  const conflicted = new Set<string>();
  let contentsOnly = true;
  let i = 1;
  if (r.code === 1) {
    for (; i < parts.length && parts[i] !== ''; i++) {
      conflicted.add(parts[i].slice(parts[i].indexOf('\t') + 1));
    }
    i++;
  }
  while (i < parts.length && parts[i] !== '') {
    const n = Number(parts[i]);
    if (!Number.isInteger(n) || n < 0) {
      return undefined;
    }
    const kind = parts[i + n + 1];
    contentsOnly &&= PLAIN_MESSAGES.has(kind);
    i += n + 3;
  }
  return /^[0-9a-f]{40,64}$/.test(tree) ? { tree, conflicted: [...conflicted], contentsOnly } : undefined;
}

/** The hooks a `git merge` + `git commit` runs; a merge made off the tree runs none of them. */
const MERGE_HOOKS = ['pre-merge-commit', 'pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-merge', 'reference-transaction'];

/** The hooks folder of each repository a run merges into, asked once a run (the hooks in it are looked for at every merge). */
const hooksFolders = new WeakMap<object, Promise<string>>();

/** `ask()` once per run (`run`: the run's own object, its RepoInfo): later merges of the run get the same answer. */
function oncePerRun<T>(cache: WeakMap<object, Promise<T>>, run: object | undefined, ask: () => Promise<T>): Promise<T> {
  if (!run) {
    return ask();
  }
  let asked = cache.get(run);
  if (!asked) {
    asked = ask();
    cache.set(run, asked);
  }
  return asked;
}

/**
 * Whether the repository has a hook that a normal merge would run (then the merge is made the
 * normal way). `run`: the run's own object (its RepoInfo), under which the folder is remembered.
 */
export async function hasMergeHooks(root: string, run?: object): Promise<boolean> {
  // --git-path follows core.hooksPath.
  const ask = () => git(root, ['rev-parse', '--path-format=absolute', '--git-path', 'hooks']).then((r) => r.stdout.trim());
  const dir = await oncePerRun(hooksFolders, run, ask);
  if (!dir) {
    return true; // cannot tell: the normal way is the safe one
  }
  const found = await Promise.all(
    MERGE_HOOKS.map((name) =>
      access(path.join(dir, name), constants.X_OK).then(
        () => true,
        () => false,
      ),
    ),
  );
  return found.includes(true);
}

/** A file of the merge's result and its text. */
export interface ReplacedFile {
  readonly path: string;
  readonly text: string;
}

export interface TreeMergeCommit {
  /** The feature branch's head (the merge's first parent). */
  readonly head: string;
  /** The story branch's head (the second parent). */
  readonly theirs: string;
  readonly tree: string;
  /** Files whose text the queue's rules decide (prd.json, progress.txt). */
  readonly replace: readonly ReplacedFile[];
  readonly message: string;
  /** The reflog's words for the move ("merge <branch>"). */
  readonly reflogAction: string;
}

/** The ref `git fast-import` leaves each merge commit on (it must name one) until the feature branch moves to it; a run deletes it when it ends. */
export const MERGE_SCRATCH_REF = 'refs/ralph/merging';

/** Deletes the scratch ref when a run ends (its commits are on the feature branch, or were undone). */
export async function forgetMergeScratch(root: string): Promise<void> {
  await git(root, ['update-ref', '-d', MERGE_SCRATCH_REF]).catch(() => undefined);
}

/**
 * Makes the merge commit from a merged tree with `replace` put in, then moves the feature branch
 * (checked out in `root`, clean) to it with `git reset --keep`. Returns the commit, or git's
 * complaint when the branch could not move (nothing was changed then). `run`: the run's own
 * object, under which the repository's commit settings are remembered (see `commitMaker`).
 */
export async function commitTreeMerge(root: string, m: TreeMergeCommit, run?: object): Promise<{ commit: string } | { refused: string }> {
  const maker = await commitMaker(root, run);
  const made = await fastImportMerge(root, m, maker.kind === 'fast-import' ? maker : undefined);
  // A commit only git makes as the repository wants it (signed, another encoding, no identity): from the same tree.
  const commit =
    maker.kind === 'fast-import'
      ? made
      : await gitOk(root, ['commit-tree', ...(maker.sign ? ['-S'] : []), `${made}^{tree}`, '-p', m.head, '-p', m.theirs, '-m', m.message], 'Making the merge commit');
  const moved = await git(root, ['reset', '--quiet', '--keep', commit], undefined, { GIT_REFLOG_ACTION: m.reflogAction });
  if (moved.code !== 0) {
    return { refused: moved.stderr || moved.stdout };
  }
  return { commit };
}

/** The author and committer lines of a merge commit as `git commit-tree` would write them. */
export interface CommitIdents {
  readonly author: string;
  readonly committer: string;
}

/**
 * Who makes a run's merge commits: fast-import, with git's identities (`git var`: user.name,
 * GIT_AUTHOR_NAME…), or git itself, signing as `git commit` does when commit.gpgSign is set (a
 * merge made the normal way is signed then), for another i18n.commitEncoding, or when git knows no
 * identity (then `git commit-tree` says so, as it always did).
 */
export type CommitMaker = ({ readonly kind: 'fast-import' } & CommitIdents) | { readonly kind: 'git'; readonly sign: boolean };

const makers = new WeakMap<object, Promise<CommitMaker>>();

/** The run's commit maker, asked at its first merge (`run`: the run's own object) and dated at each. */
export function commitMaker(root: string, run?: object): Promise<CommitMaker> {
  return oncePerRun(makers, run, () => askMaker(root)).then((m) => (m.kind === 'git' ? m : { kind: 'fast-import', author: dated(m.author, 'GIT_AUTHOR_DATE'), committer: dated(m.committer, 'GIT_COMMITTER_DATE') }));
}

async function askMaker(root: string): Promise<CommitMaker> {
  const [author, committer, settings] = await Promise.all([
    git(root, ['var', 'GIT_AUTHOR_IDENT']),
    git(root, ['var', 'GIT_COMMITTER_IDENT']),
    git(root, ['config', '--get-regexp', '^(commit\\.gpgsign|i18n\\.commitencoding)$']),
  ]);
  const values = new Map(
    settings.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const at = line.indexOf(' ');
        return [(at < 0 ? line : line.slice(0, at)).toLowerCase(), at < 0 ? 'true' : line.slice(at + 1).trim().toLowerCase()] as const;
      }),
  );
  const sign = values.has('commit.gpgsign') && !['false', 'no', 'off', '0'].includes(values.get('commit.gpgsign') ?? '');
  const encoding = values.get('i18n.commitencoding');
  const ident = /^.+ <.*> \d+ [+-]\d{4}$/;
  if (sign || (encoding !== undefined && !['utf-8', 'utf8'].includes(encoding)) || !ident.test(author.stdout.trim()) || !ident.test(committer.stdout.trim())) {
    return { kind: 'git', sign };
  }
  return { kind: 'fast-import', author: author.stdout.trim(), committer: committer.stdout.trim() };
}

/** An identity with the time of now, as git would date a commit made now; a date fixed by git's environment variable stays. */
function dated(ident: string, dateVariable: string): string {
  if (process.env[dateVariable]) {
    return ident;
  }
  const now = new Date();
  const offset = -now.getTimezoneOffset();
  const zone = `${offset < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}${String(Math.abs(offset) % 60).padStart(2, '0')}`;
  return ident.replace(/ \d+ [+-]\d{4}$/, ` ${Math.floor(now.getTime() / 1000)} ${zone}`);
}

/** A path as fast-import reads it: C-style quoted, so that any name (spaces, quotes, a newline) is one path. */
function quotePath(p: string): string {
  return `"${p.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\x00-\x1f\x7f]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`)}"`;
}

/**
 * The merge commit (or, without `who`, a commit of the same tree for git to make its own from)
 * in one `git fast-import`, where storing the files, listing the tree, making the new tree and
 * the commit took four git processes (each costs the runner's event loop several ms to start):
 * the merged tree is the root, each replaced file keeps the merged tree's mode (what a `git add`
 * after `git merge` records), at any depth. Its objects are stored as a commit's would be (loose,
 * below fastimport.unpackLimit); the commit is on MERGE_SCRATCH_REF until the branch moves.
 */
async function fastImportMerge(root: string, m: TreeMergeCommit, who: CommitIdents | undefined): Promise<string> {
  let session: GitSession;
  try {
    session = startGit(root, ['fast-import', '--quiet', '--force', '--done']);
  } catch (e) {
    // git could not even start (spawn threw: E2BIG, EINVAL…)
    throw new ParallelError('git', `Making the merge commit: git fast-import could not start (${(e as Error).message})`);
  }
  try {
    // The modes first: `ls` answers at once, one line each.
    session.write(m.replace.map((f) => `ls ${m.tree} ${quotePath(f.path)}\n`).join(''));
    const modes: string[] = [];
    while (modes.length < m.replace.length) {
      const answer = await session.line();
      if (answer === undefined) {
        break; // git stopped: its exit says why
      }
      modes.push(/^(100644|100755) blob /.exec(answer)?.[1] ?? '100644');
    }
    if (modes.length === m.replace.length) {
      const message = Buffer.from(`${m.message}\n`);
      const placeholder = 'Ralph Workbench <ralph-workbench@invalid> 0 +0000';
      session.write(
        `commit ${MERGE_SCRATCH_REF}\nmark :1\nauthor ${who?.author ?? placeholder}\ncommitter ${who?.committer ?? placeholder}\ndata ${message.length}\n`,
      );
      session.write(message);
      session.write(`from ${m.head}\nmerge ${m.theirs}\nM 040000 ${m.tree} ""\n`);
      m.replace.forEach((f, k) => {
        const text = Buffer.from(f.text);
        session.write(`M ${modes[k]} inline ${quotePath(f.path)}\ndata ${text.length}\n`);
        session.write(text);
        session.write('\n');
      });
      session.write('\nget-mark :1\ndone\n');
    }
    session.end();
    const commit = await session.line();
    const { code, stderr } = await session.exit;
    if (code !== 0 || commit === undefined || !/^[0-9a-f]{40,64}$/.test(commit)) {
      throw new ParallelError('git', `Making the merge commit: git fast-import failed: ${firstLine(stderr)}`);
    }
    return commit;
  } finally {
    session.end();
  }
}

/** A git process talked to line by line: what it prints is read one line at a time. */
interface GitSession {
  write(data: string | Buffer): void;
  end(): void;
  /** The next line it printed; undefined once it has closed its output. */
  line(): Promise<string | undefined>;
  readonly exit: Promise<{ code: number; stderr: string }>;
}

function startGit(cwd: string, args: readonly string[]): GitSession {
  const child = spawn('git', args, { cwd, env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let closed = false;
  let wake: (() => void) | undefined;
  const woken = (): void => {
    wake?.();
    wake = undefined;
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    woken();
  });
  child.stdout.on('close', () => {
    closed = true;
    woken();
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-16 * 1024);
  });
  // A git that died has closed its input: what is still written is dropped, its exit says why.
  child.stdin.on('error', () => undefined);
  const exit = new Promise<{ code: number; stderr: string }>((resolve, reject) => {
    child.on('error', (e: NodeJS.ErrnoException) => {
      closed = true;
      woken();
      reject(new ParallelError('git', `git could not run (${e.code ?? e.message}): is git installed and on PATH?`));
    });
    child.on('close', (code) => resolve({ code: code ?? 1, stderr }));
  });
  exit.catch(() => undefined);
  return {
    write: (data) => {
      if (child.stdin.writable) {
        child.stdin.write(data);
      }
    },
    end: () => {
      if (child.stdin.writable) {
        child.stdin.end();
      }
    },
    line: async () => {
      while (lines.length === 0 && !closed) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
      return lines.shift();
    },
    exit,
  };
}
