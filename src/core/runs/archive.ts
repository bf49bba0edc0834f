/**
 * Archiving a finished feature: when prd.json's `branchName` differs from the branch of the last
 * run (kept in `.ralph/last-branch`), the previous prd.json and progress.txt move to
 * `archive/<YYYY-MM-DD>-<feature>/`, where the feature is the previous branch name without its
 * `ralph/` prefix (the same layout as the original ralph.sh).
 */

export const LAST_BRANCH_FILE = '.ralph/last-branch';

/** True when a previous branch is known and prd.json now names a different one. */
export function shouldArchive(lastBranch: string | undefined | null, currentBranch: string | undefined | null): boolean {
  const last = lastBranch?.trim() ?? '';
  const current = currentBranch?.trim() ?? '';
  return last !== '' && current !== '' && last !== current;
}

/** The branch name kept in `.ralph/last-branch` (first non-empty line), or undefined. */
export function parseLastBranch(text: string | undefined): string | undefined {
  const line = text?.split(/\r?\n/).find((l) => l.trim() !== '');
  return line?.trim() || undefined;
}

/** The feature part of a branch name, safe as one folder name: `ralph/user-auth` → `user-auth`. */
export function featureName(branchName: string): string {
  const name = branchName
    .trim()
    .replace(/^ralph\//i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 80)
    .replace(/[-.]+$/, '');
  return name === '' ? 'feature' : name;
}

/**
 * `archive/YYYY-MM-DD-<feature>` for the date (local time) and the previous branch. When `taken`
 * says the folder exists already, `-2`, `-3`, … is appended.
 */
export function archiveFolderName(date: Date, branchName: string, taken: (folder: string) => boolean = () => false): string {
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const base = `archive/${day}-${featureName(branchName)}`;
  if (!taken(base)) {
    return base;
  }
  for (let k = 2; ; k++) {
    const candidate = `${base}-${k}`;
    if (!taken(candidate)) {
      return candidate;
    }
  }
}

/** The header of a fresh progress.txt, as the original ralph.sh writes it. */
export function freshProgressText(date: Date): string {
  const stamp = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return `# Ralph Progress Log\nStarted: ${stamp}\n---\n`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
