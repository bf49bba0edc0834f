/**
 * Tracks the prd.json of every workspace folder: reads it (the editor's text while it has unsaved
 * changes, the bytes on disk otherwise, so invalid UTF-8 is still caught), analyses it with the
 * core, and tells listeners. File and editor changes are debounced per folder.
 */
import * as vscode from 'vscode';
import { decodePrdBytes } from '../core/prd/document';
import { analyzePrd, type AnalyzeOptions, type PrdAnalysis } from '../core/prd/index';
import { ContextKeys } from '../constants';
import { Disposable } from '../util/disposable';
import { KeyedDebouncer } from '../util/debounce';
import { openDocument } from '../util/documents';
import { countPrdParse } from './prdParses';
import { affects, readSetting } from './settings';
import { resolveSettingPath } from './workspaceFiles';
import { watchFolderFile } from './workspaceWatch';
import type { WorkspacePathError } from '../node/workspacePath';

export interface PrdEntry {
  readonly folder: vscode.WorkspaceFolder;
  readonly uri: vscode.Uri;
  readonly analysis: PrdAnalysis;
  /** Document version the analysis was made from, when it came from an open editor. */
  readonly documentVersion?: number;
}

/** A folder whose `ralph.prdPath` was not read: it leads outside the folder (the path rule). */
export interface RefusedPrd {
  readonly folder: vscode.WorkspaceFolder;
  /** What the user sees, e.g. `The ralph.prdPath "../x/prd.json" points outside the workspace folder: it was not read.` */
  readonly message: string;
}

export class PrdWorkspace extends Disposable {
  private readonly entries = new Map<string, PrdEntry>();
  private readonly refusals = new Map<string, RefusedPrd>();
  /** Folders whose next read must not be skipped (an editor changed, a refresh was asked for). */
  private readonly forced = new Set<string>();
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly debouncer: KeyedDebouncer<string>;
  private readonly watchers = new Map<string, vscode.Disposable>();
  private initial: Promise<void> = Promise.resolve();

  constructor(private readonly log: vscode.LogOutputChannel) {
    super();
    this.debouncer = new KeyedDebouncer(150, (key) => this.reload(key), 10);
    this.register({ dispose: () => this.debouncer.dispose() });
    this.register({ dispose: () => this.watchers.forEach((w) => w.dispose()) });
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.resetWatchers()));
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (affects(e, 'prdPath')) {
          this.resetWatchers();
        }
      }),
    );
    this.register(vscode.workspace.onDidChangeTextDocument((e) => this.onDocument(e.document)));
    this.register(vscode.workspace.onDidCloseTextDocument((d) => this.onDocument(d)));
    this.register(vscode.workspace.onDidSaveTextDocument((d) => this.onDocument(d)));
    this.resetWatchers();
  }

  /** Entries in workspace-folder order, only for folders whose prd.json exists. */
  list(): PrdEntry[] {
    const folders = vscode.workspace.workspaceFolders ?? [];
    return folders.map((f) => this.entries.get(f.uri.toString())).filter((e): e is PrdEntry => e !== undefined);
  }

  /** Folders whose `ralph.prdPath` was refused (it leads outside the folder), in folder order. */
  refused(): RefusedPrd[] {
    const folders = vscode.workspace.workspaceFolders ?? [];
    return folders.map((f) => this.refusals.get(f.uri.toString())).filter((r): r is RefusedPrd => r !== undefined);
  }

  /** The entry whose prd.json is this URI. */
  byUri(uri: vscode.Uri): PrdEntry | undefined {
    return this.list().find((e) => e.uri.toString() === uri.toString());
  }

  /** The entry of the folder that holds this URI, or the only entry. */
  forFolder(folderUri?: vscode.Uri | string): PrdEntry | undefined {
    if (folderUri === undefined) {
      const all = this.list();
      return all.length === 1 ? all[0] : undefined;
    }
    return this.entries.get(folderUri.toString());
  }

  prdUri(folder: vscode.WorkspaceFolder): vscode.Uri {
    return vscode.Uri.joinPath(folder.uri, ...prdRelativePath(folder).split('/'));
  }

  /**
   * prd.json's real place for a write (an import): ralph.prdPath resolved through the path rule
   * (inside the folder after symlinks, a regular file or none yet); the rule's message when it is not.
   */
  async prdUriForWrite(folder: vscode.WorkspaceFolder): Promise<vscode.Uri | WorkspacePathError> {
    return resolveSettingPath(folder.uri, prdRelativePath(folder), 'ralph.prdPath', 'used', { regularFile: true });
  }

  refreshAll(): void {
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      this.forced.add(f.uri.toString());
      this.debouncer.trigger(f.uri.toString());
    }
  }

  /**
   * Reads this folder's prd.json now (not waiting for a watcher's report) and returns the snapshot
   * every consumer then sees: for a caller that just changed the file (the runner after an agent).
   * The read goes through the debouncer, so it never overlaps a watcher's read of the folder (a
   * slower, older read could otherwise finish last and win); unchanged text is not parsed again.
   */
  async readNow(folder: vscode.WorkspaceFolder): Promise<PrdEntry | undefined> {
    const key = folder.uri.toString();
    await this.debouncer.runNow(key);
    return this.entries.get(key);
  }

  async whenIdle(): Promise<void> {
    await this.initial;
    await this.debouncer.idle();
  }

  private resetWatchers(): void {
    this.watchers.forEach((w) => w.dispose());
    this.watchers.clear();
    const folders = vscode.workspace.workspaceFolders ?? [];
    const live = new Set(folders.map((f) => f.uri.toString()));
    for (const key of [...this.entries.keys()]) {
      if (!live.has(key)) {
        this.entries.delete(key);
        this.refusals.delete(key);
      }
    }
    for (const folder of folders) {
      const key = folder.uri.toString();
      // A change on disk (an agent, git, another editor) shows at once; a burst still ends with
      // one read of the final state. Typing in an open prd.json stays debounced (onDocument). A
      // local folder also gets Node's watch, which reports within milliseconds (the debouncer
      // merges the two reports of one write); a prd.json below the top (scripts/ralph/prd.json)
      // can arrive with its folders, in a checkout (watchFolderFile).
      this.watchers.set(key, watchFolderFile(folder, prdRelativePath(folder), () => this.debouncer.trigger(key, { leading: true })));
    }
    this.initial = Promise.all(folders.map((f) => this.debouncer.runNow(f.uri.toString()))).then(() => undefined);
  }

  private onDocument(doc: vscode.TextDocument): void {
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (this.prdUri(folder).toString() === doc.uri.toString()) {
        this.forced.add(folder.uri.toString());
        this.debouncer.trigger(folder.uri.toString());
      }
    }
  }

  private async reload(folderKey: string): Promise<void> {
    const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.toString() === folderKey);
    if (!folder) {
      return;
    }
    const uri = this.prdUri(folder);
    const started = Date.now();
    // an editor or a refresh asked: read and tell listeners even if the bytes are the same
    const forced = this.forced.delete(folderKey);
    let entry: PrdEntry | undefined;
    try {
      // The path rule: a prdPath leading outside the folder (`..`, a symlink) is not read; the Stories view says why.
      const resolved = await resolveSettingPath(folder.uri, prdRelativePath(folder), 'ralph.prdPath', 'read', { regularFile: true });
      if (resolved instanceof Error) {
        this.entries.delete(folderKey);
        if (this.refusals.get(folderKey)?.message !== resolved.message) {
          this.log.warn(`[prd] ${folder.name}: ${resolved.message}`);
        }
        this.refusals.set(folderKey, { folder, message: resolved.message });
        this.updateContext();
        this.onDidChangeEmitter.fire();
        return;
      }
      // Read at the configured Uri (the one editors and diagnostics use): it was checked to stay inside.
      this.refusals.delete(folderKey);
      const doc = openDocument(uri);
      // Messages name the file the user has (tasks/prd-auth.json, not always "prd.json").
      const options = { fileName: uri.path.slice(uri.path.lastIndexOf('/') + 1) };
      const input = doc?.isDirty ? doc.getText() : await readIfExists(uri).then((bytes) => bytes && (decodePrdBytes(bytes) ?? bytes));
      const previous = this.entries.get(folderKey);
      if (input !== undefined) {
        // The text the snapshot was made from (the watchers' second report of one write, an
        // editor saved, a refresh): it is not parsed again.
        const same = previous !== undefined && typeof input === 'string' && madeFrom(previous, uri, input, options.fileName);
        if (same && !forced && previous.documentVersion === doc?.version) {
          return; // nothing changed
        }
        entry = { folder, uri, analysis: same ? previous.analysis : this.analyze(folderKey, input, options), documentVersion: doc?.version };
      }
      if (entry && !entry.analysis.readable && previous?.analysis.readable && this.debouncer.isPending(folderKey)) {
        // Read in the middle of a write (the writer truncated the file and has more to say): a
        // newer read is already due, so keep showing the last good state rather than flash an error.
        return;
      }
      if (entry) {
        this.entries.set(folderKey, entry);
        const a = entry.analysis;
        this.log.debug(`[prd] ${vscode.workspace.asRelativePath(uri)}: ${a.doc.stories.length} stories, ${a.problems.length} problems, ${Date.now() - started} ms`);
      } else {
        this.entries.delete(folderKey);
      }
    } catch (e) {
      this.log.error(`[prd] reading ${uri.toString()} failed: ${(e as Error).message}`);
      this.entries.delete(folderKey);
    }
    this.updateContext();
    this.onDidChangeEmitter.fire();
  }

  /** THE analysis of prd.json: every parse of the file in the extension is one call of this. */
  private analyze(folderKey: string, input: string | Uint8Array, options: AnalyzeOptions): PrdAnalysis {
    if (__RALPH_TEST__) {
      countPrdParse(folderKey);
    }
    return analyzePrd(input, options);
  }

  private updateContext(): void {
    const list = this.list();
    const state = list.length === 0 ? 'noPrd' : list.some((e) => e.analysis.problems.length > 0) ? 'problems' : 'ok';
    void vscode.commands.executeCommand('setContext', ContextKeys.state, state);
    void vscode.commands.executeCommand('setContext', ContextKeys.hasCycles, list.some((e) => e.analysis.cycles.length > 0));
  }
}

/** True when the entry's analysis was made from this text of this file: parsing it again would give the same. */
function madeFrom(entry: PrdEntry, uri: vscode.Uri, text: string, fileName: string): boolean {
  const doc = entry.analysis.doc;
  // Bytes that are not UTF-8 reach the analysis as bytes (it says where): those are always parsed.
  return entry.uri.toString() === uri.toString() && doc.fileName === fileName && doc.text === (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) && !entry.analysis.problems.some((p) => p.code === 'encoding');
}

/** The PRD path setting of a folder, with forward slashes and no empty segments. */
function prdRelativePath(folder: vscode.WorkspaceFolder): string {
  const rel = readSetting('prdPath', folder.uri);
  const parts = (rel || 'prd.json').split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  return parts.length > 0 ? parts.join('/') : 'prd.json';
}

async function readIfExists(uri: vscode.Uri): Promise<Uint8Array | undefined> {
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.type & vscode.FileType.Directory) {
      return undefined;
    }
    return await vscode.workspace.fs.readFile(uri);
  } catch (e) {
    if (e instanceof vscode.FileSystemError && e.code === 'FileNotFound') {
      return undefined;
    }
    throw e;
  }
}
