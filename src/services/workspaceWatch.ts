/**
 * VS Code's workspace file watcher, made to see the files that arrive with their folder.
 *
 * On Linux the editor's recursive watcher (@parcel/watcher on inotify) reports a new folder, but a
 * file created in it before the folder's own watch is set up is never reported
 * (parcel-bundler/watcher#243), and a folder made by `mkdir -p a/b` is not watched below `a`
 * (parcel-bundler/watcher#97). Both happen in a Ralph workspace: a `git checkout` that brings
 * `.ralph/runs.jsonl` or `scripts/ralph/prd.json`, ralph.sh's `mkdir -p archive/<date>-<feature>`
 * followed by `cp prd.json progress.txt`. So the folders on the way to the watched files are
 * watched too, and what happens to them is reported like an event of the files: the caller
 * reads again, which it does anyway, since events are only hints. The folders' globs come from
 * `core/folderGlob.ts`.
 */
import * as vscode from 'vscode';

/**
 * Calls `onEvent` with the uri of each file `files` matches, and of each folder `folders` matches
 * (none: files only), that is created, changed or deleted. A folder removed and made again in one
 * burst (`git clean -fdx`, then a checkout) is reported by the editor as one change of the folder.
 */
export function watchFiles(files: vscode.GlobPattern, folders: vscode.GlobPattern | undefined, onEvent: (uri: vscode.Uri) => void): vscode.Disposable {
  const parts: vscode.Disposable[] = [];
  const fileWatcher = vscode.workspace.createFileSystemWatcher(files);
  parts.push(fileWatcher, fileWatcher.onDidCreate(onEvent), fileWatcher.onDidChange(onEvent), fileWatcher.onDidDelete(onEvent));
  if (folders !== undefined) {
    const folderWatcher = vscode.workspace.createFileSystemWatcher(folders);
    parts.push(folderWatcher, folderWatcher.onDidCreate(onEvent), folderWatcher.onDidChange(onEvent), folderWatcher.onDidDelete(onEvent));
  }
  return vscode.Disposable.from(...parts);
}
