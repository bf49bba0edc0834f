/**
 * The runs of every workspace folder: `.ralph/runs.jsonl` parsed (core/runs/runs.ts) and the
 * archived features (`archive/<date>-<feature>/`). Re-reads a folder, debounced, when those files
 * change on disk or the runner records an iteration; the Runs view draws from `list()`.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseRuns, type RunRecord, RUNS_FILE, type RunsParseError } from '../core/runs/runs';
import { Disposable } from '../util/disposable';
import { KeyedDebouncer } from '../util/debounce';
import { readInsideText } from '../node/runFiles';
import { joinRelative } from './workspaceFiles';
import { watchFiles } from './workspaceWatch';

export interface FolderRuns {
  readonly folder: vscode.WorkspaceFolder;
  /** In file order (oldest first). */
  readonly runs: readonly RunRecord[];
  readonly errors: readonly RunsParseError[];
  /** Names of the folders in archive/, newest first. */
  readonly archives: readonly string[];
}

export class RunsWorkspace extends Disposable {
  private readonly folders = new Map<string, FolderRuns>();
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<void>());
  /** Fires after a folder's runs or archives were re-read. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly debouncer = new KeyedDebouncer<string>(100, (key) => this.reload(key));

  constructor(recorded: vscode.Event<vscode.WorkspaceFolder>) {
    super();
    this.register({ dispose: () => this.debouncer.dispose() });
    const touch = (uri: vscode.Uri): void => {
      const folder = vscode.workspace.getWorkspaceFolder(uri);
      if (folder) {
        this.debouncer.trigger(folder.uri.toString());
      }
    };
    // .ralph/ and archive/<feature>/ often arrive with their files (a checkout, ralph.sh's archive step).
    this.register(watchFiles(`**/${RUNS_FILE}`, `**/${path.posix.dirname(RUNS_FILE)}`, touch));
    this.register(watchFiles('**/archive/*/{prd.json,progress.txt}', '**/{archive,archive/*}', touch));
    this.register(recorded((folder) => this.debouncer.trigger(folder.uri.toString())));
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.reloadAll()));
    this.reloadAll();
  }

  /** The folders that have runs or archives, in workspace order. */
  list(): FolderRuns[] {
    return (vscode.workspace.workspaceFolders ?? []).map((f) => this.folders.get(f.uri.toString())).filter((f): f is FolderRuns => f !== undefined);
  }

  /**
   * The runs of one folder as last read (THE reader of runs.jsonl, through the path rule: the task
   * graph's outcomes and the memory commands' "last run" come from here); undefined before its
   * first read and for a folder with no runs.
   */
  forFolder(folder: vscode.Uri): FolderRuns | undefined {
    return this.folders.get(folder.toString());
  }

  /** Re-reads every folder now (the Refresh Runs command). */
  reloadAll(): void {
    const keys = new Set((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString()));
    for (const k of [...this.folders.keys()]) {
      if (!keys.has(k)) {
        this.folders.delete(k);
      }
    }
    for (const k of keys) {
      this.debouncer.trigger(k);
    }
  }

  /** Resolves when pending re-reads are done. */
  whenIdle(): Promise<void> {
    return this.debouncer.idle();
  }

  private async reload(key: string): Promise<void> {
    const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.toString() === key);
    if (!folder) {
      return;
    }
    // runs.jsonl is read through the path rule: a .ralph/ that leads outside the folder reads as empty.
    const text = folder.uri.scheme === 'file' ? await readInsideText(folder.uri.fsPath, RUNS_FILE) : undefined;
    const parsed = parseRuns(text ?? '');
    const entries = await vscode.workspace.fs.readDirectory(joinRelative(folder.uri, 'archive')).then((e) => e, () => [] as [string, vscode.FileType][]);
    const archives = entries.filter(([, t]) => t === vscode.FileType.Directory).map(([n]) => n).sort().reverse();
    this.folders.set(key, { folder, runs: parsed.runs, errors: parsed.errors, archives });
    this.onDidChangeEmitter.fire();
  }
}
