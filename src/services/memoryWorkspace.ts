/**
 * Tracks the agent memory of every workspace folder: progress.txt (parsed), the Pin
 * (specs/INDEX.md, parsed) and the AGENTS.md files with their headings. Refreshes, debounced,
 * when any of them changes on disk or in an editor.
 */
import * as vscode from 'vscode';
import { type MdHeading, listHeadings } from '../core/agentsMd';
import { type PinDoc, parsePin } from '../core/pin/format';
import { type ProgressDoc, decodeText, learningsByStory, parseProgress, type StoryLearnings } from '../core/progress/parse';
import { Disposable } from '../util/disposable';
import { KeyedDebouncer } from '../util/debounce';
import { openDocument } from '../util/documents';
import { affects, readSettings } from './settings';
import { joinRelative, readBytes, resolveSettingPath } from './workspaceFiles';
import { watchFiles, watchFolderFile } from './workspaceWatch';

export interface ProgressState {
  readonly uri: vscode.Uri;
  readonly text: string;
  readonly doc: ProgressDoc;
}

export interface PinState {
  readonly uri: vscode.Uri;
  readonly text: string;
  readonly doc: PinDoc;
  /** The modules' files and specs that lead outside the folder, with why: the view marks them and never opens them. */
  readonly outside: ReadonlyMap<string, string>;
}

export interface AgentsFile {
  readonly uri: vscode.Uri;
  readonly headings: readonly MdHeading[];
}

/** A learning recorded for a story, with where it is. */
export interface LearningRef {
  readonly text: string;
  readonly uri: vscode.Uri;
  readonly line: number;
  readonly date?: string;
}

export interface FolderMemory {
  readonly folder: vscode.WorkspaceFolder;
  readonly progressUri: vscode.Uri;
  readonly pinUri: vscode.Uri;
  readonly progress?: ProgressState;
  readonly pin?: PinState;
  readonly agents: readonly AgentsFile[];
  /**
   * Why `ralph.progressPath` / `ralph.pinPath` was not read: it leads outside the folder (the path
   * rule, src/node/workspacePath.ts). The Memory view shows it; commands refuse to write there.
   */
  readonly refused?: { readonly progress?: string; readonly pin?: string };
}

/**
 * The progress.txt a command may write, checked again now by the path rule (the setting or a
 * symlink may have changed since the view read it); a path leading out throws the refusal.
 */
export async function usableProgressUri(m: FolderMemory): Promise<vscode.Uri> {
  return usable(m, readSettings(m.folder.uri).progressPath, 'ralph.progressPath', m.progressUri);
}

/** The Pin a command may write, checked the same way. */
export async function usablePinUri(m: FolderMemory): Promise<vscode.Uri> {
  return usable(m, readSettings(m.folder.uri).pinPath, 'ralph.pinPath', m.pinUri);
}

async function usable(m: FolderMemory, relative: string, what: string, uri: vscode.Uri): Promise<vscode.Uri> {
  const checked = await resolveSettingPath(m.folder.uri, relative, what, 'used', { regularFile: true });
  if (checked instanceof Error) {
    throw new Error(`${checked.message} Change ${what} to a path inside the folder: Ralph Workbench does not write through paths that leave the workspace.`);
  }
  return uri;
}

const AGENTS_EXCLUDE = '{**/node_modules/**,**/.git/**,**/dist/**,**/out/**,**/archive/**,**/.ralph/**}';

export class MemoryWorkspace extends Disposable {
  private readonly memories = new Map<string, FolderMemory>();
  private readonly learningGroups = new Map<string, Map<string, StoryLearnings>>();
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly debouncer = new KeyedDebouncer<string>(200, (key) => this.reload(key));
  private initial: Promise<void> = Promise.resolve();

  constructor(private readonly log: vscode.LogOutputChannel) {
    super();
    this.register({ dispose: () => this.debouncer.dispose() });
    this.register({ dispose: () => this.watcher?.dispose() });
    this.register(vscode.workspace.onDidChangeTextDocument((e) => this.touchIfMemory(e.document.uri)));
    this.register(vscode.workspace.onDidSaveTextDocument((d) => this.touchIfMemory(d.uri)));
    this.register(
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this.resetWatcher();
        this.reloadAll();
      }),
    );
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (affects(e, 'progressPath', 'pinPath')) {
          this.resetWatcher();
          this.reloadAll();
        }
      }),
    );
    this.resetWatcher();
    this.reloadAll();
  }

  private watcher: vscode.Disposable | undefined;

  /**
   * Every AGENTS.md, and each folder's progress log and Pin at the paths its settings give, the
   * only ones read (watchFolderFile: the Pin's `specs/` can arrive with its INDEX.md, in a
   * checkout; a progress log may have another name than progress.txt).
   */
  private resetWatcher(): void {
    this.watcher?.dispose();
    const touch = (uri: vscode.Uri): void => this.touch(uri);
    this.watcher = vscode.Disposable.from(
      watchFiles('**/AGENTS.md', undefined, touch),
      ...(vscode.workspace.workspaceFolders ?? []).flatMap((f) => {
        const { progressPath, pinPath } = readSettings(f.uri);
        return [progressPath, pinPath].map((p) => watchFolderFile(f, p, () => this.touch(f.uri)));
      }),
    );
  }

  list(): FolderMemory[] {
    return (vscode.workspace.workspaceFolders ?? []).map((f) => this.memories.get(f.uri.toString())).filter((m): m is FolderMemory => m !== undefined);
  }

  forFolder(folder: vscode.WorkspaceFolder | vscode.Uri): FolderMemory | undefined {
    const uri = folder instanceof vscode.Uri ? folder : folder.uri;
    return this.memories.get(uri.toString());
  }

  /** The learnings progress.txt records for a story, newest first. */
  learningsFor(folder: vscode.Uri, storyId: string): LearningRef[] {
    const progress = this.memories.get(folder.toString())?.progress;
    if (!progress) {
      return [];
    }
    let groups = this.learningGroups.get(folder.toString());
    if (!groups) {
      groups = new Map(learningsByStory(progress.doc).map((g) => [g.storyId, g]));
      this.learningGroups.set(folder.toString(), groups);
    }
    return (groups.get(storyId)?.learnings ?? []).map((l) => ({ text: l.text, uri: progress.uri, line: l.line, date: l.date }));
  }

  async whenIdle(): Promise<void> {
    await this.initial;
    await this.debouncer.idle();
  }

  refreshAll(): void {
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      this.debouncer.trigger(f.uri.toString());
    }
  }

  private reloadAll(): void {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const live = new Set(folders.map((f) => f.uri.toString()));
    for (const key of [...this.memories.keys()]) {
      if (!live.has(key)) {
        this.memories.delete(key);
      }
    }
    this.initial = Promise.all(folders.map((f) => this.reload(f.uri.toString()))).then(() => undefined);
  }

  private touch(uri: vscode.Uri): void {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (folder) {
      this.debouncer.trigger(folder.uri.toString());
    }
  }

  private touchIfMemory(uri: vscode.Uri): void {
    if (/(^|\/)(progress\.txt|INDEX\.md|AGENTS\.md)$/i.test(uri.path) || this.isConfiguredFile(uri)) {
      this.touch(uri);
    }
  }

  private isConfiguredFile(uri: vscode.Uri): boolean {
    return this.list().some((m) => m.progressUri.toString() === uri.toString() || m.pinUri.toString() === uri.toString());
  }

  private async reload(key: string): Promise<void> {
    const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.toString() === key);
    if (!folder) {
      return;
    }
    const settings = readSettings(folder.uri);
    const progressUri = joinRelative(folder.uri, settings.progressPath);
    const pinUri = joinRelative(folder.uri, settings.pinPath);
    try {
      // The path rule: a setting leading outside the folder (`..`, a symlink) is not read; the view says why.
      const [progressCheck, pinCheck] = await Promise.all([
        resolveSettingPath(folder.uri, settings.progressPath, 'ralph.progressPath', 'read', { regularFile: true }),
        resolveSettingPath(folder.uri, settings.pinPath, 'ralph.pinPath', 'read', { regularFile: true }),
      ]);
      const refused = {
        progress: progressCheck instanceof Error ? progressCheck.message : undefined,
        pin: pinCheck instanceof Error ? pinCheck.message : undefined,
      };
      const previous = this.memories.get(key)?.refused;
      for (const [which, message] of [['progress', refused.progress], ['pin', refused.pin]] as const) {
        if (message && previous?.[which] !== message) {
          this.log.warn(`[memory] ${folder.name}: ${message}`);
        }
      }
      const [progressText, pinText, agents] = await Promise.all([
        refused.progress ? undefined : this.textOf(progressUri),
        refused.pin ? undefined : this.textOf(pinUri),
        this.agentsFiles(folder),
      ]);
      this.learningGroups.delete(key);
      this.memories.set(key, {
        folder,
        progressUri,
        pinUri,
        progress: progressText === undefined ? undefined : { uri: progressUri, text: progressText, doc: parseProgress(progressText) },
        pin: pinText === undefined ? undefined : await pinState(folder.uri, pinUri, pinText),
        agents,
        refused: refused.progress || refused.pin ? refused : undefined,
      });
    } catch (e) {
      this.log.error(`[memory] reading the memory files of ${folder.name} failed: ${(e as Error).message}`);
    }
    this.onDidChangeEmitter.fire();
  }

  /** The editor's text while it has unsaved changes, the file on disk otherwise. */
  private async textOf(uri: vscode.Uri): Promise<string | undefined> {
    const doc = openDocument(uri);
    if (doc?.isDirty) {
      return doc.getText();
    }
    const bytes = await readBytes(uri);
    return bytes === undefined ? undefined : decodeText(bytes);
  }

  private async agentsFiles(folder: vscode.WorkspaceFolder): Promise<AgentsFile[]> {
    const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/AGENTS.md'), AGENTS_EXCLUDE, 500);
    uris.sort((a, b) => a.path.split('/').length - b.path.split('/').length || a.path.localeCompare(b.path));
    const out: AgentsFile[] = [];
    for (const uri of uris) {
      const text = await this.textOf(uri);
      out.push({ uri, headings: text === undefined ? [] : listHeadings(text) });
    }
    return out;
  }
}

/** The parsed Pin, with the files it names that lead outside the folder (checked by the path rule). */
async function pinState(folder: vscode.Uri, uri: vscode.Uri, text: string): Promise<PinState> {
  const doc = parsePin(text);
  const paths = new Set<string>();
  for (const mod of doc.modules) {
    for (const f of [...mod.files, ...(mod.spec ? [mod.spec] : [])]) {
      paths.add(f.replace(/\/$/, ''));
    }
  }
  const outside = new Map<string, string>();
  await Promise.all(
    [...paths].map(async (rel) => {
      const r = await resolveSettingPath(folder, rel, "Pin's file", 'opened');
      if (r instanceof Error) {
        outside.set(rel, r.message);
      }
    }),
  );
  return { uri, text, doc, outside };
}
