/** Small file helpers over vscode.workspace.fs (works for local and remote workspaces alike). */
import { appendFile, mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';

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
