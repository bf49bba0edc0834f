/** Commands on prd.json and its stories: open, reveal, mark passing, fix blockedBy, create. */
import * as vscode from 'vscode';
import type { TextEdit } from '../core/prd/edits';
import { type GraphEditResult, removeDependencyEdits, setPassesByIdEdits } from '../core/prd/graphEdits';
import { prdTemplate } from '../core/prd/template';
import { Commands } from '../constants';
import type { PrdEntry, PrdWorkspace } from '../services/prdWorkspace';
import { editTextFile } from '../services/fileEdits';
import type { StoriesTreeProvider } from '../views/storiesTree';
import { LinkNode, StoryNode, type StoryTreeNode } from '../views/storyNodes';
import { folderOf, pickFolder } from '../util/folders';
import { toRange } from '../util/ranges';
import { commandRegistrar } from './registrar';

export interface StoryCommandDeps {
  readonly prds: PrdWorkspace;
  readonly tree: StoriesTreeProvider;
  readonly treeView: vscode.TreeView<StoryTreeNode>;
  readonly log: vscode.LogOutputChannel;
}

/**
 * A story named by a tree node, or by id (and optionally the workspace folder). Anything else (a
 * view passes its focused node and the selection to a title or row action) means "the selection".
 */
type StoryArg = unknown;

export function registerStoryCommands(context: vscode.ExtensionContext, deps: StoryCommandDeps): void {
  const { prds, tree, treeView, log } = deps;
  const reg = commandRegistrar(context, log);

  const resolveStory = (arg: StoryArg, folderArg?: unknown): StoryNode => {
    const folder = typeof folderArg === 'string' ? folderArg : folderOf(folderArg)?.uri;
    if (arg instanceof StoryNode) {
      return arg;
    }
    const selected = treeView.selection[0];
    const id = typeof arg === 'string' ? arg : selected instanceof StoryNode ? selected.id : undefined;
    if (!id) {
      throw new Error('Select a story in the Stories view first.');
    }
    const node = tree.findStory(id, folder);
    if (!node) {
      throw new Error(`There is no story "${id}" in prd.json.`);
    }
    return node;
  };

  reg(Commands.refresh, () => prds.refreshAll());

  reg(Commands.storyOpen, async (arg: StoryArg, folder?: unknown) => {
    const node = resolveStory(arg, folder);
    await showRange(node.entry.uri, toRange(node.state.story.idRange));
  });

  reg(Commands.storyReveal, async (arg: StoryArg, folder?: unknown) => {
    const node = resolveStory(arg, folder);
    await treeView.reveal(node, { select: true, focus: true, expand: false });
  });

  reg(Commands.openProblem, async (uri: vscode.Uri, range: vscode.Range) => showRange(uri, range));

  const setPasses = async (arg: StoryArg, passes: boolean, folder?: unknown): Promise<boolean> => {
    const node = resolveStory(arg, folder);
    const id = node.id;
    const done = await editPrd(node.entry, (text) => editsOrThrow(setPassesByIdEdits(text, id, passes)));
    if (done) {
      vscode.window.setStatusBarMessage(`$(${passes ? 'pass-filled' : 'circle-large-outline'}) ${id} marked as ${passes ? 'passing' : 'not passing'}`, 4000);
      log.info(`[stories] ${id} marked as ${passes ? 'passing' : 'not passing'}`);
    }
    return done;
  };
  reg(Commands.markPassing, (arg: StoryArg, folder?: unknown) => setPasses(arg, true, folder));
  reg(Commands.markNotPassing, (arg: StoryArg, folder?: unknown) => setPasses(arg, false, folder));

  reg(Commands.removeBlockedBy, async (link?: LinkNode) => {
    const target = link ?? treeView.selection[0];
    if (!(target instanceof LinkNode) || target.relation !== 'blockedBy') {
      throw new Error('Select a "blocked by" entry of a story first.');
    }
    const storyId = target.parent.id;
    return removeEdge(target.parent.entry, storyId, target.targetId);
  });

  reg(Commands.breakCycle, async () => {
    type Pick = vscode.QuickPickItem & { entry?: PrdEntry; from?: string; to?: string };
    const items: Pick[] = [];
    for (const entry of prds.list()) {
      for (const cycle of entry.analysis.cycles) {
        items.push({ label: cycle.join(' → '), kind: vscode.QuickPickItemKind.Separator });
        // A cycle reads in run order: each story waits on the one before it.
        for (let k = 0; k + 1 < cycle.length; k++) {
          const blocker = cycle[k];
          const waiter = cycle[k + 1];
          items.push({
            label: `$(debug-disconnect) ${waiter} no longer waits on ${blocker}`,
            detail: `Removes "${blocker}" from the blockedBy of ${waiter}`,
            entry,
            from: waiter,
            to: blocker,
          });
        }
      }
    }
    if (items.length === 0) {
      void vscode.window.showInformationMessage('There is no dependency cycle in prd.json.');
      return false;
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'Break a dependency cycle', placeHolder: 'Pick the blockedBy entry to remove' });
    if (!pick?.entry || !pick.from || !pick.to) {
      return false;
    }
    return removeEdge(pick.entry, pick.from, pick.to);
  });

  reg(Commands.createPrd, async (folderArg?: unknown) => {
    if ((vscode.workspace.workspaceFolders ?? []).length === 0) {
      throw new Error('Open a folder first: prd.json lives in a workspace folder.');
    }
    const folder = await pickFolder({ hint: folderArg, placeHolder: 'Folder for the new prd.json' });
    if (!folder) {
      return undefined;
    }
    const uri = prds.prdUri(folder);
    if (await exists(uri)) {
      void vscode.window.showInformationMessage(`${vscode.workspace.asRelativePath(uri)} already exists; opening it.`);
    } else {
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(prdTemplate(folder.name)));
      log.info(`[stories] created ${uri.toString()}`);
    }
    await vscode.window.showTextDocument(uri);
    prds.refreshAll();
    return uri;
  });

  reg(Commands.openPrd, async (hint?: unknown) => {
    const entry = await pickEntry(prds, hint);
    if (entry) {
      await vscode.window.showTextDocument(entry.uri);
    }
  });

  reg(Commands.showNextStory, async () => {
    const next = tree.nextStory();
    if (next) {
      await treeView.reveal(next, { select: true, focus: true, expand: true });
      return next.id;
    }
    const entries = prds.list();
    if (entries.length === 0) {
      void vscode.window.showInformationMessage('There is no prd.json in this workspace.', 'Create prd.json').then((p) => {
        if (p) {
          void vscode.commands.executeCommand(Commands.createPrd);
        }
      });
      return undefined;
    }
    const r = entries[0].analysis.readiness;
    if (!entries[0].analysis.readable) {
      void vscode.window.showWarningMessage('prd.json has problems that keep it from being read; see the Problems panel.');
    } else if (r.state === 'complete' || r.state === 'empty') {
      void vscode.window.showInformationMessage(`All ${r.counts.total} stories pass. Nothing left to run.`);
    } else {
      void vscode.window.showWarningMessage(`Nothing is ready. ${r.explanation.join(' ')}`);
    }
    return undefined;
  });

  async function removeEdge(entry: PrdEntry, storyId: string, blockedId: string): Promise<boolean> {
    return editPrd(entry, (text) => editsOrThrow(removeDependencyEdits(text, storyId, blockedId)));
  }
}

function editsOrThrow(r: GraphEditResult): TextEdit[] {
  if (!r.ok) {
    throw new Error(r.message);
  }
  return r.edits;
}

/** Applies core edits to the PRD: an undoable WorkspaceEdit, saved when the file had no unsaved changes. */
export async function editPrd(entry: PrdEntry, compute: (text: string) => TextEdit[]): Promise<boolean> {
  return (await editTextFile(entry.uri, compute)) !== 'unchanged';
}

async function showRange(uri: vscode.Uri, range: vscode.Range): Promise<void> {
  const editor = await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: true });
  editor.selection = new vscode.Selection(range.start, range.end);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

async function pickEntry(prds: PrdWorkspace, hint?: unknown): Promise<PrdEntry | undefined> {
  const entries = prds.list();
  if (entries.length === 0) {
    void vscode.window.showInformationMessage('There is no prd.json in this workspace yet.');
    return undefined;
  }
  return pickFolder({ hint, candidates: entries, folderOf: (e) => e.folder, placeHolder: 'Which prd.json?' });
}
