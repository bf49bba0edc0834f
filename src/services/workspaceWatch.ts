/**
 * VS Code's workspace file watcher, made to see the files that arrive with their folder.
 *
 * On Linux the editor's recursive watcher (@parcel/watcher on inotify) reports a new folder, but a
 * file created in it before the folder's own watch is set up is never reported
 * (parcel-bundler/watcher#243); below the first folder that arrives (`mkdir -p a/b`, a checkout
 * that brings `scripts/ralph/`) nothing more is reported at all (parcel-bundler/watcher#97); and a
 * folder removed and made again in one burst (`git clean -fdx`, then a checkout) is reported as
 * one change of the folder. All of it happens in a Ralph workspace: a checkout that brings
 * `.ralph/runs.jsonl` or `scripts/ralph/prd.json`, ralph.sh's `mkdir -p archive/<date>-<feature>`
 * followed by `cp prd.json progress.txt`, an agent's write tool making `thoughts/shared/plans/`
 * and the plan at once. `node scripts/probe-file-watcher.mjs` counts both misses on a machine.
 *
 * So `watchFiles` also watches the folders on the way and reports what happens to them like an
 * event of the files (the caller reads again, which it does anyway: events are only hints), and
 * `watchFolderFile`, for one file at a path from the settings, adds Node's watch of the file's
 * folder and sets it up again whenever a folder on the way comes or goes, so the writes after the
 * arrival are seen too. Files elsewhere below a folder that arrived that way (a second plan in
 * `thoughts/shared/plans/`) are still missed until something else reads again (Refresh, a reload).
 */
import * as vscode from 'vscode';
import { anyOf, foldersOf } from '../core/folderGlob';
import { type FileWatch, watchFileInside } from '../node/fileWatch';

/**
 * Calls `onEvent` with the uri of each file `files` matches, and of each folder `folders` matches
 * (none: files only), that is created, changed or deleted; `isFolder` says which watcher saw it.
 */
export function watchFiles(files: vscode.GlobPattern, folders: vscode.GlobPattern | undefined, onEvent: (uri: vscode.Uri, isFolder: boolean) => void): vscode.Disposable {
  const parts: vscode.Disposable[] = [];
  const fileWatcher = vscode.workspace.createFileSystemWatcher(files);
  const onFile = (uri: vscode.Uri): void => onEvent(uri, false);
  parts.push(fileWatcher, fileWatcher.onDidCreate(onFile), fileWatcher.onDidChange(onFile), fileWatcher.onDidDelete(onFile));
  if (folders !== undefined) {
    const folderWatcher = vscode.workspace.createFileSystemWatcher(folders);
    const onFolder = (uri: vscode.Uri): void => onEvent(uri, true);
    parts.push(folderWatcher, folderWatcher.onDidCreate(onFolder), folderWatcher.onDidChange(onFolder), folderWatcher.onDidDelete(onFolder));
  }
  return vscode.Disposable.from(...parts);
}

/**
 * One file of a workspace folder, at a path from the settings (prd.json, the progress log, the
 * Pin): `watchFiles` on it and on the folders on the way, and for a local folder Node's watch of
 * the file's folder (`node/fileWatch.ts`, which also reports within milliseconds), set up again
 * when a folder on the way comes, changes or goes.
 */
export function watchFolderFile(folder: vscode.WorkspaceFolder, relative: string, onEvent: () => void): vscode.Disposable {
  let fast: FileWatch | undefined;
  const arm = (): void => {
    fast?.close();
    fast = folder.uri.scheme === 'file' ? watchFileInside(folder.uri.fsPath, relative.replace(/\\/g, '/'), onEvent) : undefined;
  };
  const onTheWay = anyOf(foldersOf(relative));
  const editor = watchFiles(new vscode.RelativePattern(folder, relative), onTheWay && new vscode.RelativePattern(folder, onTheWay), (_uri, isFolder) => {
    if (isFolder) {
      arm();
    }
    onEvent();
  });
  arm();
  return vscode.Disposable.from(editor, { dispose: () => fast?.close() });
}
