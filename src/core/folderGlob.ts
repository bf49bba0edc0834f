/**
 * The folders on the way to a workspace file, as a glob: what `services/workspaceWatch.ts` watches
 * besides the file itself, since a file that arrives with its folder can go unreported.
 */

/** Characters a glob reads as syntax: a folder named with one is not matched by its name. */
const GLOB_SYNTAX = /[*?[\]{}!,\\]/;

/**
 * The names of a workspace-relative path from the top (either separator, `.` dropped, `..`
 * applied); undefined for an absolute path or one that leaves the folder.
 */
export function relativeNames(relativeFile: string): string[] | undefined {
  if (/^([\\/]|[A-Za-z]:)/.test(relativeFile)) {
    return undefined;
  }
  const names: string[] = [];
  for (const name of relativeFile.split(/[\\/]+/)) {
    if (name === '..') {
      if (names.pop() === undefined) {
        return undefined;
      }
    } else if (name !== '' && name !== '.') {
      names.push(name);
    }
  }
  return names;
}

/**
 * The folders on the way to a workspace-relative file, from the top: `scripts/ralph/prd.json` →
 * `scripts`, `scripts/ralph`; none for a file at the top of the folder (the folder itself is always
 * watched) or a path outside it, and none from the first folder whose name a glob would misread.
 */
export function foldersOf(relativeFile: string): string[] {
  const names = relativeNames(relativeFile) ?? [];
  names.pop();
  const paths: string[] = [];
  for (const name of names) {
    if (GLOB_SYNTAX.test(name)) {
      break;
    }
    paths.push(paths.length === 0 ? name : `${paths[paths.length - 1]}/${name}`);
  }
  return paths;
}

/** One glob for several paths (each free of glob syntax): `a`, `{a,a/b}`; undefined for none. */
export function anyOf(paths: readonly string[]): string | undefined {
  const unique = [...new Set(paths)];
  return unique.length === 0 ? undefined : unique.length === 1 ? unique[0] : `{${unique.join(',')}}`;
}
