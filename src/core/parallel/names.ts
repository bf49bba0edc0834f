/**
 * Names of a story's worktree: its branch `<branchName>-<storyId>` made into a name git accepts,
 * and the rule that a story id may name a folder. Pure: the worktree manager (src/node/parallel)
 * asks git too, these rules only let it refuse early with a message that says why.
 */

/**
 * Why `git check-ref-format --branch <name>` would refuse `name`, or undefined when it accepts it
 * (the rules of git-check-ref-format(1), for a branch: `refs/heads/<name>`).
 */
export function branchNameProblem(name: string): string | undefined {
  if (name === '') {
    return 'it is empty';
  }
  if (name.startsWith('-')) {
    return 'it starts with "-"';
  }
  if (name === 'HEAD') {
    return '"HEAD" is not a branch name';
  }
  if (name === '@') {
    return 'it is "@"';
  }
  const bad = /[\x00-\x20\x7f~^:?*[\\]/.exec(name);
  if (bad) {
    return bad[0] === ' ' ? 'it contains a space' : `it contains ${JSON.stringify(bad[0])}`;
  }
  if (name.includes('..')) {
    return 'it contains ".."';
  }
  if (name.includes('@{')) {
    return 'it contains "@{"';
  }
  if (name.endsWith('.')) {
    return 'it ends with "."';
  }
  for (const part of name.split('/')) {
    if (part === '') {
      return 'it has an empty path component ("//", or "/" at an end)';
    }
    if (part.startsWith('.')) {
      return `the component "${part}" starts with "."`;
    }
    if (part.endsWith('.lock')) {
      return `the component "${part}" ends with ".lock"`;
    }
  }
  return undefined;
}

/**
 * A branch name git accepts, made from `raw` by replacing what git refuses: refused characters
 * become "-", ".." and "@{" are broken, empty components dropped, a leading "." or "-" and a
 * trailing "." or ".lock" changed. A name git accepts already is returned as it is.
 */
export function sanitizeBranchName(raw: string): string {
  if (branchNameProblem(raw) === undefined) {
    return raw;
  }
  let s = raw.replace(/[\x00-\x20\x7f~^:?*[\\]/g, '-');
  s = s.replace(/\.{2,}/g, '.').replace(/@\{/g, '@-');
  const parts = s
    .split('/')
    .filter((p) => p !== '')
    // Dots at either end of a component go (git refuses a leading one, and a trailing one ends
    // the name or hides ".lock").
    .map((p) => p.replace(/^\.+/, '').replace(/\.+$/, ''))
    .map((p) => (p.endsWith('.lock') ? `${p.slice(0, -'.lock'.length)}-lock` : p))
    .filter((p) => p !== '');
  // Whatever leads the name now (a first component that was only dots and dashes goes whole).
  s = parts.join('/').replace(/^[-./]+/, '');
  if (s === '' || s === 'HEAD') {
    s = `ralph-${s || 'story'}`;
  }
  return s;
}

/** The branch of a story's worktree: `<branchName>-<storyId>`, sanitised to a name git accepts. */
export function storyBranchName(featureBranch: string, storyId: string): string {
  return sanitizeBranchName(`${featureBranch}-${storyId}`);
}

/**
 * Why a story id cannot be one folder name on every platform (it names the story's worktree
 * folder), or undefined when it can.
 */
export function pathSegmentProblem(id: string): string | undefined {
  if (id === '' || id.trim() === '') {
    return 'it is empty';
  }
  if (id === '.' || id === '..') {
    return `"${id}" names a folder already`;
  }
  const bad = /[\x00-\x1f\x7f/\\:*?"<>|]/.exec(id);
  if (bad) {
    return `it contains ${JSON.stringify(bad[0])}`;
  }
  if (/[. ]$/.test(id)) {
    return 'it ends with "." or a space (Windows drops those)';
  }
  if (/^(?:con|prn|aux|nul|com\d|lpt\d)(?:\.|$)/i.test(id)) {
    return 'it is a device name on Windows';
  }
  if (id.length > 100) {
    return 'it is longer than 100 characters';
  }
  return undefined;
}

/** The worktree folder's default parent: `<repo>/../.<repo>-ralph-worktrees` (posix path arithmetic is the caller's). */
export function defaultWorktreeRootName(repoFolderName: string): string {
  return `.${repoFolderName}-ralph-worktrees`;
}
