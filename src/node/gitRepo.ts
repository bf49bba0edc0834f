/**
 * The git steps of an iteration (simple-git): be on the PRD's branch before an agent runs, and
 * find the `feat: <id> - …` commit it made. A folder that is not a git repository, or a machine
 * without git, gives `undefined` from `openRepo`: runs still work, the git steps are skipped.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { type SimpleGit, simpleGit } from 'simple-git';

export interface CommitInfo {
  readonly sha: string;
  readonly subject: string;
}

export type BranchAction = 'already-on-branch' | 'checked-out' | 'created';

export class GitError extends Error {}

export class GitRepo {
  private constructor(
    private readonly git: SimpleGit,
    readonly root: string,
  ) {}

  static async open(cwd: string): Promise<GitRepo | undefined> {
    try {
      const git = simpleGit({ baseDir: cwd, maxConcurrentProcesses: 2, trimmed: true });
      if (!(await git.checkIsRepo())) {
        return undefined;
      }
      const root = await git.revparse(['--show-toplevel']);
      return new GitRepo(simpleGit({ baseDir: root, maxConcurrentProcesses: 2, trimmed: true }), root);
    } catch {
      return undefined; // git missing, or not a repository
    }
  }

  async currentBranch(): Promise<string | undefined> {
    try {
      const name = await this.git.revparse(['--abbrev-ref', 'HEAD']);
      return name === 'HEAD' ? undefined : name;
    } catch {
      return undefined; // no commit yet
    }
  }

  /** True when HEAD is detached (false on a branch, also one without a commit yet). */
  async isDetached(): Promise<boolean> {
    try {
      await this.git.raw(['symbolic-ref', '-q', 'HEAD']);
      return false;
    } catch {
      return true;
    }
  }

  /** A merge, rebase, cherry-pick, revert or bisect under way (its name), undefined when none. */
  async operation(): Promise<string | undefined> {
    let gitDir: string;
    try {
      gitDir = await this.git.revparse(['--absolute-git-dir']);
    } catch {
      return undefined;
    }
    const markers: [string, string][] = [
      ['MERGE_HEAD', 'merge'],
      ['rebase-merge', 'rebase'],
      ['rebase-apply', 'rebase'],
      ['CHERRY_PICK_HEAD', 'cherry-pick'],
      ['REVERT_HEAD', 'revert'],
      ['BISECT_LOG', 'bisect'],
    ];
    return markers.find(([file]) => existsSync(path.join(gitDir, file)))?.[1];
  }

  async head(): Promise<string | undefined> {
    try {
      return await this.git.revparse(['HEAD']);
    } catch {
      return undefined;
    }
  }

  /** Tracked files with changes (untracked files do not block a checkout and are ignored). */
  async changedFiles(): Promise<string[]> {
    const status = await this.git.status();
    return status.files.filter((f) => f.index !== '?' && f.working_dir !== '?').map((f) => f.path);
  }

  /**
   * Every path with uncommitted changes, untracked files included (an agent's `git add -A` would
   * commit them), except Ralph Workbench's own `.ralph/` state, which never counts as dirty.
   */
  async uncommittedFiles(): Promise<string[]> {
    const status = await this.git.status();
    return status.files.map((f) => f.path).filter((p) => !isRalphState(p));
  }

  /** Stashes every uncommitted change (untracked files too, `.ralph/` excepted); returns the stash's message. */
  async stash(message: string): Promise<string> {
    try {
      await this.git.raw(['stash', 'push', '--include-untracked', '-m', message, '--', '.', ':(exclude).ralph']);
      return message;
    } catch (e) {
      throw new GitError(`git could not stash the changes: ${firstLine((e as Error).message)}`);
    }
  }

  async defaultBranch(): Promise<string | undefined> {
    try {
      const ref = await this.git.raw(['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD']);
      const name = ref.trim().replace(/^refs\/remotes\/origin\//, '');
      if (name) {
        return name;
      }
    } catch {
      // no remote HEAD: look for the usual names
    }
    const local = await this.git.branchLocal();
    for (const candidate of ['main', 'master', 'trunk', 'develop']) {
      if (local.all.includes(candidate)) {
        return candidate;
      }
    }
    return local.current || undefined;
  }

  /**
   * Makes sure `branch` is checked out: nothing to do when it already is; otherwise a clean tree
   * is required (unless `allowDirty`: the user chose to run anyway, and git carries the changes
   * along or refuses when they conflict), then the branch is checked out, or created from the
   * default branch.
   */
  async ensureBranch(branch: string, { allowDirty = false } = {}): Promise<{ action: BranchAction; from?: string }> {
    const current = await this.currentBranch();
    if (current === branch) {
      return { action: 'already-on-branch' };
    }
    const changed = allowDirty ? [] : await this.changedFiles();
    if (changed.length > 0) {
      const list = changed.slice(0, 5).join(', ') + (changed.length > 5 ? `, and ${changed.length - 5} more` : '');
      throw new GitError(
        `Cannot switch to branch "${branch}": the working tree has uncommitted changes (${list}). Commit or stash them, then run again.`,
      );
    }
    const local = await this.git.branchLocal();
    try {
      if (local.all.includes(branch)) {
        await this.git.checkout(branch);
        return { action: 'checked-out' };
      }
      const base = await this.defaultBranch();
      if (base && base !== current && local.all.includes(base)) {
        await this.git.checkout(['-b', branch, base]);
        return { action: 'created', from: base };
      }
      await this.git.checkoutLocalBranch(branch);
      return { action: 'created', from: current };
    } catch (e) {
      throw new GitError(`git could not check out "${branch}": ${firstLine((e as Error).message)}`);
    }
  }

  /** Commits after `since` (exclusive), newest first; all of HEAD's history when `since` is undefined (capped). */
  async commitsSince(since: string | undefined, max = 50): Promise<CommitInfo[]> {
    try {
      const range = since ? [`${since}..HEAD`] : ['HEAD'];
      const out = await this.git.raw(['log', '--format=%H%x09%s', `-n${max}`, ...range]);
      return out
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const tab = line.indexOf('\t');
          return { sha: line.slice(0, tab), subject: line.slice(tab + 1) };
        });
    } catch {
      return [];
    }
  }
}

function isRalphState(p: string): boolean {
  return p === '.ralph' || p === '.ralph/' || p.startsWith('.ralph/');
}

function firstLine(s: string): string {
  return s.split('\n').find((l) => l.trim() !== '')?.trim() ?? s;
}
