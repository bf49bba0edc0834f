/**
 * A low-latency watch of one file inside a workspace folder, with Node's fs.watch on the file's
 * directory (the way VS Code's own git extension watches .git): an agent's write to prd.json is seen
 * within milliseconds, where the editor's file watcher reports it about 100 ms later. The directory
 * is watched, not the file, so a file replaced by rename (an atomic write) or created later is still
 * seen. The directory is resolved inside the folder first (symlinks included); a path that leaves
 * the folder, or a directory that does not exist (yet), is not watched (callers keep VS Code's
 * watcher for those). Events are hints: the caller reads the file again.
 */
import { watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import { resolveInsideSync } from './workspacePath';

export interface FileWatch {
  close(): void;
}

/**
 * Calls `onChange` when the file at `relative` (posix separators) under `root` may have changed.
 * Returns undefined when it cannot watch (outside the folder, no directory, no fs.watch support).
 */
export function watchFileInside(root: string, relative: string, onChange: () => void): FileWatch | undefined {
  const parts = relative.split('/').filter((p) => p !== '' && p !== '.');
  const name = parts.pop();
  if (!name) {
    return undefined;
  }
  let watcher: FSWatcher;
  try {
    const dir = resolveInsideSync(root, parts.length > 0 ? parts.join('/') : '.', { what: 'watched folder' });
    watcher = watch(dir, { persistent: false }, (_event, filename) => {
      // Some platforms give no file name: then any change in the directory counts.
      if (filename === null || filename === undefined || path.basename(filename.toString()) === name) {
        onChange();
      }
    });
  } catch {
    return undefined;
  }
  // The directory was removed or became unreadable: stop quietly (VS Code's watcher still reports).
  watcher.on('error', () => watcher.close());
  return { close: () => watcher.close() };
}
