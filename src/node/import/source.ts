/**
 * The files of an import source on disk (issue 22): a file, or a folder that holds one — a
 * Backlog.md `backlog/` or `backlog/tasks/` folder (every task file), a `.taskmaster` or `.beads`
 * folder, a spec folder with a `tasks.md`, or a workspace that has one of these. Paths in the
 * stories' `source.file` are relative to the workspace. Taskmaster's current tag comes from its
 * `.taskmaster/state.json`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ImportError, type SourceFile } from '../../core/import/index';

/** A larger file is refused: it is not a backlog (a 100,000-task tasks.json is about 60 MB). */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;

export interface ImportSource {
  readonly files: SourceFile[];
  /** Absolute path of the file or folder read (for messages and the prd.json's description). */
  readonly label: string;
  /** Taskmaster: the current tag of `.taskmaster/state.json`, when there is one. */
  readonly defaultTag?: string;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readText(file: string, root: string): SourceFile {
  const size = statSync(file).size;
  if (size > MAX_IMPORT_BYTES) {
    throw new ImportError(`${file} is ${Math.round(size / 1024 / 1024)} MB: more than an import reads (${MAX_IMPORT_BYTES / 1024 / 1024} MB).`);
  }
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  return { file: path.relative(root, file).split(path.sep).join('/') || path.basename(file), text };
}

/** The task files of a Backlog.md tasks folder, in name order. */
function backlogTasks(dir: string, root: string): SourceFile[] {
  return readdirSync(dir)
    .filter((n) => n.toLowerCase().endsWith('.md') && !isDir(path.join(dir, n)))
    .sort()
    .map((n) => readText(path.join(dir, n), root));
}

/** The Backlog.md tasks folder a folder stands for: its own backlog/tasks, or itself as backlog/ or backlog/tasks/. */
function backlogDir(dir: string): string | undefined {
  const base = path.basename(dir);
  const candidates = [path.join(dir, 'backlog', 'tasks'), base === 'backlog' ? path.join(dir, 'tasks') : '', base === 'tasks' && path.basename(path.dirname(dir)) === 'backlog' ? dir : ''];
  return candidates.find((d) => d !== '' && isDir(d));
}

/** The one file a folder stands for: Taskmaster's, beads', a spec's tasks.md. */
function fileInFolder(dir: string): string | undefined {
  const base = path.basename(dir);
  const candidates = [path.join(dir, '.taskmaster', 'tasks', 'tasks.json'), base === '.taskmaster' ? path.join(dir, 'tasks', 'tasks.json') : '', path.join(dir, '.beads', 'issues.jsonl'), base === '.beads' ? path.join(dir, 'issues.jsonl') : '', path.join(dir, 'tasks.md')];
  return candidates.find((c) => c !== '' && existsSync(c) && !isDir(c));
}

/** One file; Taskmaster's current tag with it when it is a JSON file. */
function oneFile(file: string, root: string): ImportSource {
  const tag = file.endsWith('.json') ? taskmasterTag(file) : undefined;
  return { files: [readText(file, root)], label: file, ...(tag !== undefined ? { defaultTag: tag } : {}) };
}

function taskmasterTag(tasksJson: string): string | undefined {
  const state = path.join(path.dirname(path.dirname(tasksJson)), 'state.json');
  try {
    const tag = (JSON.parse(readFileSync(state, 'utf8')) as { currentTag?: unknown }).currentTag;
    return typeof tag === 'string' && tag.trim() !== '' ? tag.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the source at `target` (absolute, or relative to `root`). */
export function readImportSource(target: string, root: string): ImportSource {
  const abs = path.resolve(root, target);
  if (!existsSync(abs)) {
    throw new ImportError(`${target}: no such file or folder.`);
  }
  if (!isDir(abs)) {
    return oneFile(abs, root);
  }
  const tasksDir = backlogDir(abs);
  if (tasksDir) {
    return { files: backlogTasks(tasksDir, root), label: tasksDir };
  }
  const single = fileInFolder(abs);
  if (single) {
    return oneFile(single, root);
  }
  throw new ImportError(`${target} is a folder with no backlog this import reads: looked for backlog/tasks/*.md, .taskmaster/tasks/tasks.json, .beads/issues.jsonl and tasks.md.`);
}
