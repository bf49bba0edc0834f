/** Small file helpers over vscode.workspace.fs (works for local and remote workspaces alike). */
import { appendFile, mkdir, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { resolveInside, WorkspacePathError } from '../node/workspacePath';

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

export async function readBytes(uri: vscode.Uri): Promise<Uint8Array | undefined> {
  try {
    return await vscode.workspace.fs.readFile(uri);
  } catch (e) {
    if (e instanceof vscode.FileSystemError && (e.code === 'FileNotFound' || e.code === 'FileIsADirectory')) {
      return undefined;
    }
    throw e;
  }
}

export async function readText(uri: vscode.Uri): Promise<string | undefined> {
  const bytes = await readBytes(uri);
  return bytes === undefined ? undefined : decoder.decode(bytes);
}

export async function writeText(uri: vscode.Uri, text: string): Promise<void> {
  await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(uri, '..'));
  await vscode.workspace.fs.writeFile(uri, encoder.encode(text));
}

export async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/**
 * Appends text. Local files use O_APPEND, so a concurrent writer (an agent appending to the same
 * file) loses nothing; other schemes read and write through the fs API.
 */
export async function appendText(uri: vscode.Uri, text: string): Promise<void> {
  if (uri.scheme === 'file') {
    await mkdir(path.dirname(uri.fsPath), { recursive: true });
    await appendFile(uri.fsPath, text, 'utf8');
    return;
  }
  const before = (await readText(uri)) ?? '';
  const sep = before === '' || before.endsWith('\n') ? '' : '\n';
  await writeText(uri, before + sep + text);
}

/** A workspace-relative path with forward slashes, split for Uri.joinPath. */
export function joinRelative(base: vscode.Uri, relative: string): vscode.Uri {
  return vscode.Uri.joinPath(base, ...relative.split(/[\\/]+/).filter((p) => p !== '' && p !== '.'));
}

/**
 * A path from a workspace setting or a workspace file (`ralph.prdPath`, `progressPath`, `pinPath`,
 * a Pin entry's file), checked by the one path rule (src/node/workspacePath.ts): on a `file:`
 * folder it is resolved with symlinks followed and must land inside the folder; on other schemes
 * (remote file systems) the lexical check that `..` does not leave the folder is all there is.
 * Returns the Uri to use (the real file, expressed under the folder's Uri), or the refusal whose
 * message says which path and why ("ralph.prdPath "../x/prd.json" points outside the workspace
 * folder: it was not read.").
 */
export async function resolveSettingPath(
  folder: vscode.Uri,
  relative: string,
  what: string,
  verb: 'read' | 'opened' | 'used' = 'read',
  options: { regularFile?: boolean } = {},
): Promise<vscode.Uri | WorkspacePathError> {
  const rel = relative.trim() === '' ? '.' : relative;
  let result: vscode.Uri | WorkspacePathError;
  try {
    if (folder.scheme === 'file') {
      const real = await resolveInside(folder.fsPath, rel, { what });
      const realRoot = await realpath(folder.fsPath);
      result = joinRelative(folder, path.relative(realRoot, real).split(path.sep).join('/'));
    } else {
      result = lexicalInside(folder, rel, what);
    }
  } catch (e) {
    if (!(e instanceof WorkspacePathError)) {
      throw e;
    }
    result = e;
  }
  if (result instanceof WorkspacePathError) {
    return new WorkspacePathError(result.relative, result.reason, result.message.replace(/it was not used\.$/, `it was not ${verb}.`));
  }
  // A file setting names a regular file (or one not made yet): a FIFO or a device would hang the read.
  const type = options.regularFile ? await fileType(result) : undefined;
  if (type !== undefined && !(type & vscode.FileType.File)) {
    return new WorkspacePathError(relative, 'not-a-file', `The ${what} "${relative}" is not a regular file: it was not ${verb}.`);
  }
  return result;
}

async function fileType(uri: vscode.Uri): Promise<vscode.FileType | undefined> {
  try {
    return (await vscode.workspace.fs.stat(uri)).type;
  } catch {
    return undefined;
  }
}

/** The same check for a Uri already built (a view item's file): it must lie inside a workspace folder. */
export async function checkInsideWorkspace(uri: vscode.Uri, what: string): Promise<vscode.Uri | WorkspacePathError> {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === uri.scheme && f.uri.authority === uri.authority && isUnder(f.uri.path, uri.path));
  if (!folder) {
    return new WorkspacePathError(uri.path, 'outside', `The ${what} "${uri.scheme === 'file' ? uri.fsPath : uri.toString()}" is outside the workspace folder: it was not opened.`);
  }
  const rel = uri.path.slice(folder.uri.path.replace(/\/$/, '').length).replace(/^\/+/, '');
  return resolveSettingPath(folder.uri, rel, what, 'opened');
}

function isUnder(folderPath: string, p: string): boolean {
  const base = folderPath.replace(/\/$/, '');
  return p === base || p.startsWith(`${base}/`);
}

function lexicalInside(folder: vscode.Uri, relative: string, what: string): vscode.Uri | WorkspacePathError {
  if (path.posix.isAbsolute(relative.replace(/\\/g, '/')) || /^[A-Za-z]:/.test(relative)) {
    return new WorkspacePathError(relative, 'absolute', `The ${what} "${relative}" is absolute: use a path inside the workspace folder.`);
  }
  const normal = path.posix.normalize(relative.replace(/\\/g, '/'));
  if (normal === '..' || normal.startsWith('../')) {
    return new WorkspacePathError(relative, 'outside', `The ${what} "${relative}" points outside the workspace folder: it was not used.`);
  }
  return joinRelative(folder, normal);
}
