/**
 * A story's merge made off the main working tree (issue 19: merges off the critical path). With
 * git ≥ 2.38, `git merge-tree --write-tree` merges the story's branch into the feature branch in
 * git's object store alone; prd.json and progress.txt are then put into that tree as the queue's
 * rules make them, the merge commit is made with `git commit-tree`, and one `git reset --keep`
 * moves the feature branch to it, writing only the files the merge changed. A `git merge --no-ff`
 * followed by `git commit` leaves the same commit, index and files, but reads and refreshes every
 * tracked file of the main tree several times over (a few hundred ms at 5,000 files).
 *
 * `reset --keep` is one git process: a runner killed meanwhile cannot leave the branch moved and
 * the files not (git finishes without it), and it refuses, changing nothing, when a file it would
 * write has changes of the user's or is untracked in the way.
 */
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { firstLine, git, gitOk, ParallelError } from './git';

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

/**
 * Whether the repository has a hook that a normal merge would run (then the merge is made the
 * normal way). `run`: the run's own object (its RepoInfo), under which the folder is remembered.
 */
export async function hasMergeHooks(root: string, run?: object): Promise<boolean> {
  // --git-path follows core.hooksPath.
  const ask = () => git(root, ['rev-parse', '--path-format=absolute', '--git-path', 'hooks']).then((r) => r.stdout.trim());
  let folder = run ? hooksFolders.get(run) : undefined;
  if (!folder) {
    folder = ask();
    if (run) {
      hooksFolders.set(run, folder);
    }
  }
  const dir = await folder;
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

/**
 * Makes the merge commit from a merged tree with `replace` put in, then moves the feature branch
 * (checked out in `root`, clean) to it with `git reset --keep`. Returns the commit, or git's
 * complaint when the branch could not move (nothing was changed then).
 */
export async function commitTreeMerge(root: string, m: TreeMergeCommit): Promise<{ commit: string } | { refused: string }> {
  const tree = await replaceFiles(root, m.head, m.tree, m.replace);
  const commit = await gitOk(root, ['commit-tree', tree, '-p', m.head, '-p', m.theirs, '-m', m.message], 'Making the merge commit');
  const moved = await git(root, ['reset', '--quiet', '--keep', commit], undefined, { GIT_REFLOG_ACTION: m.reflogAction });
  if (moved.code !== 0) {
    return { refused: moved.stderr || moved.stdout };
  }
  return { commit };
}

/**
 * `tree` with each of `files` set to its text. Files at the top of the repository (prd.json and
 * progress.txt, mostly) take three git processes: their blobs stored at once, the tree's entries
 * listed, a tree made with them replaced (`mktree`), each keeping the merged tree's mode (what a
 * `git add` after `git merge` records); deeper ones go through a private index.
 */
async function replaceFiles(root: string, head: string, tree: string, files: readonly ReplacedFile[]): Promise<string> {
  if (files.length === 0) {
    return tree;
  }
  if (files.every((f) => !f.path.includes('/') && !/[\0\n\t]/.test(f.path))) {
    return replaceTopFiles(root, tree, files);
  }
  const blobs = await Promise.all(files.map((f) => git(root, ['hash-object', '-w', '--stdin'], f.text)));
  const bad = blobs.find((b) => b.code !== 0);
  if (bad) {
    throw new ParallelError('git', `Storing ${files.map((f) => f.path).join(', ')} for the merge: git hash-object failed: ${firstLine(bad.stderr)}`);
  }
  // `<mode> blob <oid>\t<path>` each; a file the feature branch lacks is a plain one.
  const listed = (await git(root, ['ls-tree', '-z', head, '--', ...files.map((f) => f.path)])).stdout.split('\0');
  const modes = files.map((f) => /^(100644|100755) /.exec(listed.find((l) => l.endsWith(`\t${f.path}`)) ?? '')?.[1] ?? '100644');
  const dir = await mkdtemp(path.join(tmpdir(), 'ralph-merge-'));
  const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
  try {
    await gitOk(root, ['read-tree', tree], 'Reading the merged tree', env);
    const lines = files.map((f, k) => `${modes[k]} ${blobs[k].stdout.trim()}\t${f.path}\n`).join('');
    await gitOk(root, ['update-index', '--index-info'], 'Putting prd.json and progress.txt in the merge', env, lines);
    return await gitOk(root, ['write-tree'], 'Writing the merged tree', env);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function replaceTopFiles(root: string, tree: string, files: readonly ReplacedFile[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ralph-merge-'));
  let oids: string[];
  try {
    const paths = await Promise.all(
      files.map(async (f, k) => {
        const file = path.join(dir, String(k));
        await writeFile(file, f.text);
        return file;
      }),
    );
    // --no-filters: the text as given, as `hash-object --stdin` stores it (no end-of-line or clean filter).
    const out = await gitOk(root, ['hash-object', '-w', '--no-filters', '--stdin-paths'], `Storing ${files.map((f) => f.path).join(', ')} for the merge`, undefined, `${paths.join('\n')}\n`);
    oids = out.split('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // `<mode> <type> <oid>\t<name>` NUL each: what mktree -z reads back.
  const entries = (await gitOk(root, ['ls-tree', '-z', tree], 'Listing the merged tree')).split('\0').filter((e) => e !== '');
  const byName = new Map(entries.map((e) => [e.slice(e.indexOf('\t') + 1), e] as const));
  files.forEach((f, k) => {
    const mode = /^(100644|100755) blob /.exec(byName.get(f.path) ?? '')?.[1] ?? '100644';
    byName.set(f.path, `${mode} blob ${oids[k]}\t${f.path}`);
  });
  return gitOk(root, ['mktree', '-z'], 'Writing the merged tree', undefined, `${[...byName.values()].join('\0')}\0`);
}
