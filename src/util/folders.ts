/**
 * The one folder picker of the commands, and the one reader of "which folder did the caller mean".
 * A command invoked from a view title, an inline action or a context menu receives the view's
 * focused node (and the selected nodes) as arguments, whatever its declared parameters are; so a
 * folder hint is read from anything: a Uri, a WorkspaceFolder, a tree node that carries one, or an
 * array of those. Anything else is no hint (never a crash).
 */
import * as vscode from 'vscode';

/** The workspace folder `arg` points at, or undefined when it names none. */
export function folderOf(arg: unknown, depth = 0): vscode.WorkspaceFolder | undefined {
  if (arg === null || arg === undefined || depth > 3) {
    return undefined;
  }
  if (arg instanceof vscode.Uri) {
    return vscode.workspace.getWorkspaceFolder(arg);
  }
  if (Array.isArray(arg)) {
    return folderOf(arg[0], depth + 1);
  }
  if (typeof arg !== 'object') {
    return undefined;
  }
  const o = arg as Record<string, unknown>;
  if (o.uri instanceof vscode.Uri && typeof o.name === 'string' && typeof o.index === 'number') {
    // a WorkspaceFolder
    return vscode.workspace.getWorkspaceFolder(o.uri);
  }
  // Tree nodes: { entry: { folder } } (Stories), { folder } (Runs), { memory: { folder } } (Memory).
  return folderOf(o.folder, depth + 1) ?? folderOf(o.entry, depth + 1) ?? folderOf(o.memory, depth + 1);
}

export interface PickFolderOptions<T> {
  /** Whatever the command received that may name a folder (see folderOf). */
  readonly hint?: unknown;
  /** The folders the command can work in, with what it needs there (default: every folder). */
  readonly candidates?: readonly T[];
  /** The folder of a candidate (needed when candidates are not WorkspaceFolders). */
  readonly folderOf?: (candidate: T) => vscode.WorkspaceFolder;
  readonly placeHolder?: string;
}

/**
 * The candidate for the hinted folder; else the only candidate; else the user's pick among the
 * candidates (undefined when there is none or the user cancels).
 */
export async function pickFolder<T = vscode.WorkspaceFolder>(options: PickFolderOptions<T> = {}): Promise<T | undefined> {
  const candidates = options.candidates ?? ((vscode.workspace.workspaceFolders ?? []) as readonly unknown[] as readonly T[]);
  const folderOfCandidate = options.folderOf ?? ((c: T) => c as unknown as vscode.WorkspaceFolder);
  const hinted = folderOf(options.hint);
  if (hinted) {
    const match = candidates.find((c) => folderOfCandidate(c).uri.toString() === hinted.uri.toString());
    if (match !== undefined) {
      return match;
    }
  }
  if (candidates.length <= 1) {
    return candidates[0];
  }
  const pick = await vscode.window.showQuickPick(
    candidates.map((c) => ({ label: folderOfCandidate(c).name, description: folderOfCandidate(c).uri.fsPath, candidate: c })),
    { placeHolder: options.placeHolder ?? 'Which folder?' },
  );
  return pick?.candidate;
}
