/**
 * What a crash in the middle of a merge left in the main working tree, told apart from what the
 * user did there since (resume.ts). Only Ralph's own half-merge is undone: a `git merge` or
 * `cherry-pick` under way of a story recorded `merging`, the staged changes of a replay cut off
 * between `cherry-pick --no-commit` and its commit, the copies a replay made of the story's commits.
 * A merge of the user's own, their staged work and their commits are never touched: resume refuses,
 * or keeps them and says so.
 */
import type { ParallelState, StoryRunRecord } from '../../core/parallel/state';
import { storyPasses } from '../../core/parallel/prdMerge';
import { commitsNotOn, firstLine, git, ParallelError } from './git';

export interface MemoryRels {
  readonly prd: string;
  readonly progress: string;
}

const ok = async (root: string, args: readonly string[]): Promise<string | undefined> => {
  const r = await git(root, args);
  return r.code === 0 ? r.stdout.trim() : undefined;
};

/** The commit a ref names, or undefined when it does not exist. */
const commitOf = (root: string, ref: string): Promise<string | undefined> => ok(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);

/** Where the record's merge started: `before` (or, in an older record, the worktree's base). */
const startOf = (r: StoryRunRecord): string => r.before ?? r.base;

/** The story's own commits (not on the feature branch where its merge began). */
async function storyCommits(root: string, r: StoryRunRecord): Promise<string[]> {
  return (await commitsNotOn(root, `refs/heads/${r.branch}`, startOf(r)).catch(() => [])).map((c) => c.sha);
}

/**
 * Undoes a merge or cherry-pick a crash left under way in the main tree when it is Ralph's (the
 * one of a story recorded `merging`); refuses, changing nothing, when it is anyone else's. Then a
 * replay cut off between `cherry-pick --no-commit` and its commit (staged changes, nothing under
 * way) is undone when the staged files are exactly one of the story's commits.
 */
export async function settleMainTree(root: string, state: ParallelState | undefined, rels: MemoryRels): Promise<void> {
  const merging = (state?.stories ?? []).filter((s) => s.state === 'merging');
  const [mergeHead, pickHead] = await Promise.all([commitOf(root, 'MERGE_HEAD'), commitOf(root, 'CHERRY_PICK_HEAD')]);
  if (mergeHead) {
    const tips = await Promise.all(merging.map((r) => commitOf(root, `refs/heads/${r.branch}`)));
    if (!tips.includes(mergeHead)) {
      throw new ParallelError('dirty', `A merge is under way in ${root} (git merge of ${mergeHead.slice(0, 8)}) that is not Ralph Workbench's: finish it (git commit) or abort it (git merge --abort), then run again. Nothing was changed.`);
    }
    await git(root, ['merge', '--abort']);
  }
  if (pickHead) {
    const ours = await Promise.all(merging.map(async (r) => (await storyCommits(root, r)).includes(pickHead)));
    if (!ours.includes(true)) {
      throw new ParallelError('dirty', `A cherry-pick is under way in ${root} (of ${pickHead.slice(0, 8)}) that is not Ralph Workbench's: finish it (git cherry-pick --continue) or abort it (git cherry-pick --abort), then run again. Nothing was changed.`);
    }
    await git(root, ['cherry-pick', '--abort']);
  }
  if (mergeHead || pickHead) {
    return;
  }
  for (const r of merging) {
    if (await isCutOffPick(root, r, rels)) {
      await git(root, ['reset', '--quiet', '--merge', 'HEAD']);
      return;
    }
  }
}

/**
 * Whether the main tree's uncommitted changes are a replay step of the story cut off before its
 * commit: everything staged, nothing else changed or untracked, and every staged file but prd.json
 * and progress.txt as one of the story's commits has it (or, nothing but those two staged, the story
 * passing in the staged prd.json: the replay's last step). Anything else is the user's.
 */
async function isCutOffPick(root: string, r: StoryRunRecord, rels: MemoryRels): Promise<boolean> {
  const status = await git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames']);
  const entries = status.stdout.split('\0').filter((e) => e.length > 3 && !/^\.ralph(\/|$)/.test(e.slice(3)));
  if (status.code !== 0 || entries.length === 0 || entries.some((e) => e[1] !== ' ' || e[0] === '?')) {
    return false;
  }
  const memory = new Set([rels.prd, rels.progress]);
  const paths = entries.map((e) => e.slice(3)).filter((p) => !memory.has(p));
  if (paths.length === 0) {
    const prd = await ok(root, ['show', `:${rels.prd}`]);
    return prd !== undefined && storyPasses(prd, r.storyId);
  }
  const blobs = async (treeish: string | undefined): Promise<string> => {
    const out = treeish ? await git(root, ['ls-tree', '-z', treeish, '--', ...paths]) : await git(root, ['ls-files', '-s', '-z', '--', ...paths]);
    // `<mode> <type?> <oid>…\t<path>` each: the oid and path are what must match.
    return out.stdout
      .split('\0')
      .filter((l) => l !== '')
      .map((l) => `${/[0-9a-f]{40,64}/.exec(l)?.[0] ?? ''} ${l.slice(l.indexOf('\t') + 1)}`)
      .sort()
      .join('\n');
  };
  const staged = await blobs(undefined);
  for (const c of await storyCommits(root, r)) {
    if ((await blobs(c)) === staged) {
      return true;
    }
  }
  return false;
}

/** A commit as `-C` copies it: author, author date and message. */
async function replayKeys(root: string, ...revs: string[]): Promise<{ sha: string; key: string }[]> {
  const out = await git(root, ['log', '--format=%H%x1f%an%x1f%ae%x1f%at%x1f%B%x1e', ...revs, '--']);
  return out.stdout
    .split('\x1e')
    .map((s) => s.replace(/^\n/, ''))
    .filter((s) => s !== '')
    .map((s) => {
      const at = s.indexOf('\x1f');
      return { sha: s.slice(0, at), key: s.slice(at + 1).trimEnd() };
    });
}

export type CutOffMerge =
  /** The merge was made (the crash came after it): the story's commits are on the feature branch. */
  | { readonly kind: 'merged' }
  /** Nothing of the merge is on the feature branch (now): merge again, on top of whatever is there. */
  | { readonly kind: 'again'; readonly note?: string }
  /** A half-finished replay that cannot be undone without dropping other commits: left as it is. */
  | { readonly kind: 'kept'; readonly note: string };

/**
 * Where a story recorded `merging` stands on the feature branch (checked out in `root`): merged
 * (its branch is in the feature branch, or a replay copied its last commit), not merged (the
 * feature branch is where the merge began, or moved on by commits of the user's only), or cut off
 * half-way through a replay, whose copies go (`reset --keep` to where the merge began) only when
 * nothing but them was committed since.
 */
export async function cutOffMerge(root: string, r: StoryRunRecord, featureBranch: string): Promise<CutOffMerge> {
  if ((await git(root, ['merge-base', '--is-ancestor', `refs/heads/${r.branch}`, 'HEAD'])).code === 0) {
    return { kind: 'merged' };
  }
  const start = startOf(r);
  const since = await replayKeys(root, `${start}..HEAD`);
  if (since.length === 0) {
    return { kind: 'again' };
  }
  // Copies (a replay, whatever the mode of the run that made them: a merge makes none).
  const story = new Set((await replayKeys(root, `${start}..refs/heads/${r.branch}`)).map((c) => c.key));
  const tip = (await replayKeys(root, '-1', `refs/heads/${r.branch}`))[0];
  const copies = since.filter((c) => story.has(c.key));
  if (tip && copies.some((c) => c.key === tip.key)) {
    return { kind: 'merged' };
  }
  if (copies.length === 0) {
    return { kind: 'again' }; // the user's commits only: the story merges on top of them
  }
  const others = since.filter((c) => !story.has(c.key));
  if (others.length === 0) {
    const back = await git(root, ['reset', '--keep', start]);
    return back.code === 0
      ? { kind: 'again' }
      : { kind: 'kept', note: `${r.storyId}: its replay was cut off half-way and could not be undone (${firstLine(back.stderr)}): check ${featureBranch}.` };
  }
  const named = others
    .slice(0, 3)
    .map((c) => `${c.sha.slice(0, 8)} ${c.key.split('\x1f')[3]?.split('\n')[0] ?? ''}`)
    .join('; ');
  return {
    kind: 'kept',
    note: `${r.storyId}: its replay onto ${featureBranch} was cut off half-way (${copies.length} of its commits copied), and ${others.length} other commit(s) were made on top since (${named}): the copies were not undone, so nothing is dropped. Remove them by hand (git rebase -i), then Retry.`,
  };
}
