/**
 * The folders on the way to a workspace file, as a glob: what `services/workspaceWatch.ts` watches
 * besides the file itself, since a file that arrives with its folder can go unreported.
 */

/** Characters a glob reads as syntax: a folder named with one is not matched by its name. */
const GLOB_SYNTAX = /[*?[\]{}!,\\]/;

/**
 * The folders on the way to a workspace-relative file, from the top: `scripts/ralph/prd.json` →
 * `scripts`, `scripts/ralph`; none for a file at the top of the folder (the folder itself is always
 * watched), and none from the first folder whose name a glob would misread (the files watcher still
 * sees what is written there once the folder is watched).
 */
export function foldersOf(relativeFile: string): string[] {
  const names = relativeFile.split('/').filter((p) => p !== '' && p !== '.');
  names.pop();
  const paths: string[] = [];
  for (const name of names) {
    if (name === '..' || GLOB_SYNTAX.test(name)) {
      break;
    }
    paths.push(paths.length === 0 ? name : `${paths[paths.length - 1]}/${name}`);
  }
  return paths;
}

/** The file name at the end of a workspace-relative path when a glob reads it as itself, else undefined. */
export function plainName(relativeFile: string): string | undefined {
  const name = relativeFile.split('/').filter((p) => p !== '' && p !== '.').pop();
  return name === undefined || name === '..' || GLOB_SYNTAX.test(name) ? undefined : name;
}

/** One glob for several paths (each free of glob syntax): `a`, `{a,a/b}`; undefined for none. */
export function anyOf(paths: readonly string[]): string | undefined {
  const unique = [...new Set(paths)];
  return unique.length === 0 ? undefined : unique.length === 1 ? unique[0] : `{${unique.join(',')}}`;
}
