/**
 * The one rule for paths that come from workspace files or workspace settings (prd/progress/Pin
 * paths, a prompt template, spec links, Pin file paths, the `.ralph/` and `archive/` folders):
 * after resolving `..` and following symlinks, they must land inside the workspace folder.
 * Reads are of regular files only and bounded; writes never follow a symlink out of the folder.
 *
 * Node-only (the CLI and the extension host share it); the extension works on `file:` folders.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import * as path from 'node:path';

export type OutsideReason = 'absolute' | 'outside' | 'not-a-file' | 'missing';

/** A workspace-supplied path that may not be used, with a message that says which and why. */
export class WorkspacePathError extends Error {
  constructor(
    readonly relative: string,
    readonly reason: OutsideReason,
    message: string,
  ) {
    super(message);
    this.name = 'WorkspacePathError';
  }
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export interface ResolveOptions {
  /** Allow an absolute path (it must still resolve inside the folder). Default false. */
  readonly allowAbsolute?: boolean;
  /** What the path names, for messages ("ralph.prdPath", "the Pin's spec link"). */
  readonly what?: string;
}

/**
 * Resolves `relative` against the folder `root` and checks, after following every symlink of the
 * existing part of the path, that it stays inside `root`. Returns the real absolute path (for a
 * path that does not exist yet: the real path of its nearest existing ancestor joined with the rest).
 * Throws WorkspacePathError otherwise.
 */
export async function resolveInside(root: string, relative: string, options: ResolveOptions = {}): Promise<string> {
  // A handful of realpath calls on the path's existing prefix: cheap enough to share the sync logic.
  return resolveInsideSync(root, relative, options);
}

/** resolveInside for synchronous callers (the CLI's hot paths, the prompt-inputs reader). */
export function resolveInsideSync(root: string, relative: string, options: ResolveOptions = {}): string {
  const what = options.what ?? 'path';
  if (path.isAbsolute(relative) && !options.allowAbsolute) {
    throw new WorkspacePathError(relative, 'absolute', `The ${what} "${relative}" is absolute: use a path inside the workspace folder.`);
  }
  const realRoot = realpathSync(root);
  const lexical = path.resolve(realRoot, relative);
  if (!isInside(realRoot, lexical)) {
    throw new WorkspacePathError(relative, 'outside', `The ${what} "${relative}" points outside the workspace folder: it was not used.`);
  }
  const rest: string[] = [];
  let current = lexical;
  let real: string;
  for (;;) {
    try {
      real = realpathSync(current);
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        throw e;
      }
      const parent = path.dirname(current);
      if (parent === current) {
        real = current;
        break;
      }
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
  const resolved = rest.length ? path.join(real, ...rest) : real;
  if (!isInside(realRoot, resolved)) {
    throw new WorkspacePathError(relative, 'outside', `The ${what} "${relative}" leads outside the workspace folder through a symbolic link: it was not used.`);
  }
  return resolved;
}

export interface BoundedRead {
  readonly text: string;
  /** True when the file had more than maxBytes bytes (or maxLines lines): the text is its start. */
  readonly truncated: boolean;
}

/**
 * Reads the start of a regular file inside `root`: at most `maxBytes` bytes, then at most
 * `maxLines` lines. Refuses what is not a regular file (devices, FIFOs, folders) and anything
 * outside the folder. Returns undefined when the file does not exist.
 */
export async function readInsideBounded(
  root: string,
  relative: string,
  limits: { maxBytes: number; maxLines?: number },
  options: ResolveOptions = {},
): Promise<BoundedRead | undefined> {
  const abs = await resolveInside(root, relative, options);
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO must not hang; the fstat below refuses it anyway.
    handle = await open(abs, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw e;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new WorkspacePathError(relative, 'not-a-file', `The ${options.what ?? 'path'} "${relative}" is not a regular file: it was not read.`);
    }
    const size = Math.min(stat.size, limits.maxBytes);
    const buffer = Buffer.alloc(size + 1);
    let read = 0;
    while (read < buffer.length) {
      const { bytesRead } = await handle.read(buffer, read, buffer.length - read, read);
      if (bytesRead === 0) {
        break;
      }
      read += bytesRead;
    }
    let truncated = read > limits.maxBytes;
    let text = buffer.subarray(0, Math.min(read, limits.maxBytes)).toString('utf8');
    if (limits.maxLines !== undefined) {
      let index = -1;
      for (let line = 0; line < limits.maxLines; line++) {
        index = text.indexOf('\n', index + 1);
        if (index < 0) {
          break;
        }
      }
      if (index >= 0 && index < text.length - 1) {
        text = text.slice(0, index + 1);
        truncated = true;
      }
    }
    return { text, truncated };
  } finally {
    await handle.close();
  }
}

/** Synchronous twin of readInsideBounded (the CLI is synchronous; the reads are small and bounded). */
export function readInsideBoundedSync(
  root: string,
  relative: string,
  limits: { maxBytes: number; maxLines?: number },
  options: ResolveOptions = {},
): BoundedRead | undefined {
  const abs = resolveInsideSync(root, relative, options);
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw e;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new WorkspacePathError(relative, 'not-a-file', `The ${options.what ?? 'path'} "${relative}" is not a regular file: it was not read.`);
    }
    const buffer = Buffer.alloc(Math.min(stat.size, limits.maxBytes) + 1);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) {
        break;
      }
      read += n;
    }
    return cutLines(buffer.subarray(0, Math.min(read, limits.maxBytes)).toString('utf8'), read > limits.maxBytes || stat.size > limits.maxBytes, limits.maxLines);
  } finally {
    closeSync(fd);
  }
}

function cutLines(text: string, truncated: boolean, maxLines: number | undefined): BoundedRead {
  if (maxLines !== undefined) {
    let index = -1;
    for (let line = 0; line < maxLines; line++) {
      index = text.indexOf('\n', index + 1);
      if (index < 0) {
        break;
      }
    }
    if (index >= 0 && index < text.length - 1) {
      return { text: text.slice(0, index + 1), truncated: true };
    }
  }
  return { text, truncated };
}

/**
 * Checks that a file the extension is about to write (or create) stays inside `root` after
 * following symlinks, and that an existing target is a regular file, not a symlink leading out.
 * Returns the real absolute path to write to.
 */
export async function writableInside(root: string, relative: string, options: ResolveOptions = {}): Promise<string> {
  const abs = await resolveInside(root, relative, options);
  try {
    const st = await lstat(abs);
    if (!st.isFile()) {
      throw new WorkspacePathError(relative, 'not-a-file', `The ${options.what ?? 'path'} "${relative}" is not a regular file: it was not written.`);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw e;
    }
  }
  return abs;
}
