/**
 * The files an iteration writes (`.ralph/…`, the archive, a fresh progress.txt) and the archiving
 * of a finished feature, all through the path rule (src/node/workspacePath.ts): a symlinked
 * `.ralph/`, `progress.txt` or `archive/` that leads outside the workspace folder is refused with a
 * message, never followed.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { appendFile, copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { archiveFolderName, parseLastBranch, shouldArchive } from '../core/runs/archive';
import { resolveInside, writableInside, WorkspacePathError } from './workspacePath';

/** A write Ralph Workbench refused (outside the workspace, or not a regular file). */
export class RunFileError extends Error {}

async function target(root: string, relative: string, what: string): Promise<string> {
  try {
    const abs = await writableInside(root, relative, { what });
    await mkdir(path.dirname(abs), { recursive: true });
    // The folder just made (or found) must still be inside: a symlinked parent is caught by writableInside.
    return abs;
  } catch (e) {
    if (e instanceof WorkspacePathError) {
      throw new RunFileError(`${e.message} Ralph Workbench does not write through links that leave the workspace.`);
    }
    throw e;
  }
}

export async function writeInside(root: string, relative: string, text: string | Uint8Array, what = relative): Promise<string> {
  const abs = await target(root, relative, what);
  await writeFile(abs, text);
  return abs;
}

export async function appendInside(root: string, relative: string, text: string, what = relative): Promise<void> {
  await appendFile(await target(root, relative, what), text, 'utf8');
}

/**
 * Writes an iteration's prompt; when that fails, what was written is removed (a half prompt would
 * look like a whole one) and the error says why in words: a full disk plainly, anything else by its
 * code. `retry` is what the user does next ("Retry", "run again").
 */
export async function writePromptFile(file: string, text: string, retry: string, write: (file: string, text: string) => Promise<void> = writeFile): Promise<void> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await write(file, text);
  } catch (e) {
    await rm(file, { force: true }).catch(() => undefined);
    const code = (e as NodeJS.ErrnoException).code;
    throw new RunFileError(code === 'ENOSPC' ? `the disk is full: its prompt could not be written (nothing was started; free some space and ${retry}).` : `its prompt could not be written (${code ?? (e instanceof Error ? e.message : String(e))}).`);
  }
}

/** An agent's output log (`.ralph/logs/<run>.log`), appended to; a write that fails later (a full disk) is dropped, never thrown. */
export async function openAgentLog(root: string, relative: string): Promise<WriteStream> {
  const stream = createWriteStream(await target(root, relative, 'agent log'), { flags: 'a' });
  // A full disk or a removed folder must not crash the runner: the agent's run goes on unlogged.
  stream.on('error', () => undefined);
  return stream;
}

/** The real path to write `relative` to (checked, parent made), for writers that take a path. */
export function writablePath(root: string, relative: string, what = relative): Promise<string> {
  return target(root, relative, what);
}

/** Why one of these files could not be written (a link leading outside the folder), or undefined when all can. */
export async function unwritableReason(root: string, relatives: readonly string[]): Promise<string | undefined> {
  for (const relative of relatives) {
    try {
      await writableInside(root, relative, { what: relative });
    } catch (e) {
      if (e instanceof WorkspacePathError) {
        return `${e.message} Ralph Workbench does not write through links that leave the workspace.`;
      }
      throw e;
    }
  }
  return undefined;
}

/** The text of a file inside the folder, or undefined (a path leading outside reads as missing). */
export async function readInsideText(root: string, relative: string): Promise<string | undefined> {
  try {
    const abs = await writableInside(root, relative);
    return await readFile(abs, 'utf8');
  } catch {
    return undefined;
  }
}

export interface Archived {
  readonly last: string;
  /** Workspace-relative, e.g. archive/2026-11-23-old-feature. */
  readonly target: string;
  /** Removes what archiving made (when the run cannot start after all). */
  readonly undo: () => Promise<void>;
}

/**
 * When prd.json names another branch than the last run (`.ralph/last-branch`), copies the previous
 * feature's prd.json (the snapshot after its last iteration, else the current one) and progress.txt
 * to `archive/<date>-<feature>/`; the caller then starts a fresh progress.txt.
 */
export async function archiveIfBranchChanged(
  root: string,
  files: { lastBranch: string; lastPrd: string; prd: string; progress: string },
  branchName: string | undefined,
): Promise<Archived | undefined> {
  const last = parseLastBranch(await readInsideText(root, files.lastBranch));
  if (!last || !shouldArchive(last, branchName)) {
    return undefined;
  }
  let archiveRoot: string;
  try {
    archiveRoot = await resolveInside(root, 'archive', { what: 'archive/ folder' });
  } catch (e) {
    throw e instanceof WorkspacePathError ? new RunFileError(e.message) : e;
  }
  const existed = await readdir(archiveRoot).catch(() => undefined);
  const existing = new Set((existed ?? []).map((n) => `archive/${n}`));
  const folder = archiveFolderName(new Date(), last, (f) => existing.has(f));
  const made: string[] = [];
  if (existed === undefined) {
    made.push(archiveRoot);
  }
  const prdSource = (await readInsideText(root, files.lastPrd)) !== undefined ? files.lastPrd : files.prd;
  for (const [from, name] of [
    [prdSource, 'prd.json'],
    [files.progress, 'progress.txt'],
  ] as const) {
    const text = await readInsideText(root, from);
    if (text === undefined) {
      continue;
    }
    const dest = await target(root, `${folder}/${name}`, `${folder}/`);
    made.push(path.dirname(dest));
    await copyFile(await writableInside(root, from), dest);
  }
  return {
    last,
    target: folder,
    undo: async () => {
      for (const p of made.reverse()) {
        await rm(p, { recursive: true, force: true }).catch(() => undefined);
      }
    },
  };
}
