/** Compaction of progress.txt (preview, apply, undo) and generation of the Pin, both previewed as a diff first. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { planCompaction, stillOverAdvice } from '../core/progress/compact';
import { settingId } from '../core/settingKeys';
import { decodeText, looksBinary } from '../core/progress/parse';
import { writeFileAtomically } from '../node/atomicWrite';
import { applyCompaction, undoLastCompaction } from '../node/compaction';
import { reconcileCompaction } from '../node/compactionReconcile';
import { generateRepoPinOffThread, PinCancelled } from '../node/pinRepo';
import { Commands } from '../constants';
import { type FolderMemory, type MemoryWorkspace, usablePinUri, usableProgressUri } from '../services/memoryWorkspace';
import { readSettings } from '../services/settings';
import { readBytes, resolveSettingPath } from '../services/workspaceFiles';
import { previewChange, type ProposedContentProvider } from '../views/proposedContent';
import { pickFolder } from '../util/folders';
import { hasUnsavedChanges } from '../util/documents';
import { commandRegistrar } from './registrar';

/** The settings that decide how far compaction can go, named in its advice. */
const SETTING_KNOBS = { keep: settingId('keepRecentLines'), threshold: settingId('compactThreshold') };

export interface CompactionCommandDeps {
  readonly memory: MemoryWorkspace;
  readonly proposed: ProposedContentProvider;
  readonly log: vscode.LogOutputChannel;
  /** Whether one of the extension's own iterations is running in the folder (it may append to progress.txt). */
  readonly iterationRunning?: (folder: vscode.WorkspaceFolder) => boolean;
}

/** The folder a caller (Undo's button, a test) names instead of picking one. */
interface AutoOptions {
  readonly folder?: vscode.Uri;
}

export function registerCompactionCommands(context: vscode.ExtensionContext, deps: CompactionCommandDeps): void {
  const { memory, proposed, log } = deps;
  const pinWorker = vscode.Uri.joinPath(context.extensionUri, 'dist', 'pinWorker.js').fsPath;
  const reg = commandRegistrar(context, log);

  const pick = async (hint?: unknown): Promise<FolderMemory | undefined> => {
    await memory.whenIdle();
    return pickFolder({ hint, candidates: memory.list(), folderOf: (m) => m.folder });
  };

  const requireLocal = (uri: vscode.Uri): string => {
    if (uri.scheme !== 'file') {
      throw new Error(`${uri.toString()} is not a local file; compaction and the Pin work on local folders.`);
    }
    return uri.fsPath;
  };

  reg(Commands.compact, async (options: AutoOptions = {}) => {
    const m = await pick(options.folder);
    if (!m) {
      return undefined;
    }
    const file = requireLocal((await usableProgressUri(m)));
    const name = vscode.workspace.asRelativePath(m.progressUri, false);
    if (deps.iterationRunning?.(m.folder)) {
      // The agent appends to progress.txt at the end of its iteration: compacting now would race it.
      void vscode.window.showWarningMessage(`An iteration is running in ${m.folder.name}: compact ${name} when it has finished (or stop the loop first).`);
      return { changed: false, reason: 'iteration running' };
    }
    if (!hasUnsavedChanges(m.progressUri)) {
      // Lines a stalled agent wrote to the file the last compaction replaced: into the plan too.
      const late = await reconcileCompaction(file, new Date(), name);
      if (late.logLine) {
        log.info(`[memory] ${late.logLine}`);
      }
      if (late.warning) {
        log.warn(`[memory] ${late.warning}`);
      }
    }
    const bytes = await readBytes(m.progressUri);
    if (bytes === undefined) {
      void vscode.window.showInformationMessage(`There is no ${name} to compact.`);
      return { changed: false };
    }
    const text = decodeText(bytes);
    if (bytes.includes(0) || looksBinary(text)) {
      throw new Error(`${name} does not look like a text file (NUL bytes or invalid UTF-8); nothing changed.`);
    }
    if (hasUnsavedChanges(m.progressUri)) {
      throw new Error(`${name} has unsaved changes: save or revert them, then compact.`);
    }
    const settings = readSettings(m.folder.uri);
    const plan = planCompaction(text, {
      threshold: settings.compactThreshold,
      keepRecentLines: settings.keepRecentLines,
      now: new Date(),
    });
    if (!plan.changed) {
      void vscode.window.showInformationMessage([`${name}: ${plan.reason}`, stillOverAdvice(plan, SETTING_KNOBS)].filter(Boolean).join(' '));
      return { changed: false, reason: plan.reason };
    }
    const summary = `${plan.linesBefore} → ${plan.linesAfter} lines; ${plan.entriesSummarised} older entries summarised per story (${plan.stories.join(', ')}), learnings and files kept`;
    const advice = stillOverAdvice(plan, SETTING_KNOBS);
    const apply = await previewChange(proposed, m.progressUri, plan.text, `${name} ↔ compacted (preview)`, `Compact ${name}? ${summary}. ${advice ? `${advice} ` : ''}The original is saved to .ralph/archive/ first.`);
    if (!apply) {
      return { changed: false, cancelled: true };
    }
    // The original is saved to .ralph/archive/ beside progress.txt: a symlinked .ralph/ leading out is refused.
    const archiveDir = path.relative(m.folder.uri.fsPath, path.join(path.dirname(file), '.ralph', 'archive')).split(path.sep).join('/');
    const archiveChecked = await resolveSettingPath(m.folder.uri, archiveDir, '.ralph/archive/ folder', 'used');
    if (archiveChecked instanceof Error) {
      throw new Error(`${archiveChecked.message} ${name} was not compacted.`);
    }
    const done = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Compacting ${name}` }, () =>
      applyCompaction(file, bytes, plan, new Date(), name),
    );
    log.info(`[memory] ${done.logLine}`);
    if (done.warning) {
      log.warn(`[memory] ${done.warning}`);
      void vscode.window.showWarningMessage(done.warning);
    }
    memory.refreshAll();
    void vscode.window.showInformationMessage(`Compacted ${name}: ${summary}. Original saved to ${path.relative(m.folder.uri.fsPath, done.archive)}.`, 'Undo').then((p) => {
      if (p) {
        void vscode.commands.executeCommand(Commands.undoCompaction, { folder: m.folder.uri });
      }
    });
    return { changed: true, archive: done.archive, linesBefore: plan.linesBefore, linesAfter: plan.linesAfter };
  });

  reg(Commands.undoCompaction, async (options: AutoOptions = {}) => {
    const m = await pick(options.folder);
    if (!m) {
      return undefined;
    }
    const name = vscode.workspace.asRelativePath((await usableProgressUri(m)), false);
    if (hasUnsavedChanges(m.progressUri)) {
      throw new Error(`${name} has unsaved changes: save or revert them first.`);
    }
    const restored = await undoLastCompaction(requireLocal(m.progressUri), new Date(), name);
    log.info(`[memory] ${name}: compaction undone from ${restored}`);
    memory.refreshAll();
    void vscode.window.showInformationMessage(`Restored ${name} from ${path.relative(m.folder.uri.fsPath, restored)}.`);
    return restored;
  });

  reg(Commands.generatePin, async (options: AutoOptions = {}) => {
    const m = await pick(options.folder);
    if (!m) {
      return undefined;
    }
    const root = requireLocal(m.folder.uri);
    const name = vscode.workspace.asRelativePath((await usablePinUri(m)), false);
    if (hasUnsavedChanges(m.pinUri)) {
      throw new Error(`${name} has unsaved changes: save or revert them, then generate.`);
    }
    // In a worker thread: scanning a large repository takes seconds and must not block the extension host.
    let result;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Generating ${name}`, cancellable: true },
        async (_progress, token) => {
          const abort = new AbortController();
          const sub = token.onCancellationRequested(() => abort.abort());
          try {
            return await generateRepoPinOffThread(pinWorker, root, requireLocal(m.pinUri), abort.signal);
          } finally {
            sub.dispose();
          }
        },
      );
    } catch (e) {
      if (e instanceof PinCancelled) {
        return { changed: false, cancelled: true };
      }
      throw e;
    }
    if (result.source === 'walk') {
      log.info(`[pin] ${m.folder.name} is not a git repository (or git is missing): files listed with a folder walk that honours .gitignore.`);
    }
    for (const s of result.stale) {
      log.warn(`[pin] module "${s.module}" lists ${s.file}, which is not among the repository's files`);
    }
    if (result.text === result.existingText) {
      void vscode.window.showInformationMessage(`${name} is up to date (${result.doc.modules.length} modules, ${result.files.length} files).`);
      return { changed: false };
    }
    const current = result.existingText === undefined ? proposed.propose(m.pinUri, '') : m.pinUri;
    const what = `${result.doc.modules.length} modules (${result.added} new, ${result.updated} updated) from ${result.files.length} files`;
    const apply = await previewChange(proposed, current, result.text, `${name} ↔ generated (preview)`, `Write ${name}? ${what}. What you wrote by hand is kept.`);
    if (!apply) {
      return { changed: false, cancelled: true };
    }
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(m.pinUri, '..'));
    await writeFileAtomically(m.pinUri.fsPath, result.text);
    memory.refreshAll();
    void vscode.window.showInformationMessage(`Wrote ${name}: ${what}.`);
    return { changed: true, modules: result.doc.modules.length };
  });

}
