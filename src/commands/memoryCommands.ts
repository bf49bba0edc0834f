/** Commands that curate the agents' memory: progress.txt learnings and patterns, AGENTS.md notes, the Pin. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AGENTS_MD_SECTIONS, agentsMdSkeleton, insertNote, listHeadings, nearestAgentsMd } from '../core/agentsMd';
import { matchPin } from '../core/pin/format';
import {
  addCodebasePattern,
  addCodebasePatternAppend,
  addLearning,
  addLearningAppend,
  newProgressEntry,
  newProgressEntryAppend,
} from '../core/progress/edits';
import { freshProgressText } from '../core/runs/archive';
import { parseRuns } from '../core/runs/runs';
import { Commands } from '../constants';
import { editTextFile } from '../services/fileEdits';
import { type FolderMemory, type MemoryWorkspace, usableProgressUri } from '../services/memoryWorkspace';
import type { PrdWorkspace } from '../services/prdWorkspace';
import { RUNS_FILE } from '../core/runs/runs';
import { checkInsideWorkspace, exists, joinRelative, readText, resolveSettingPath, writeText } from '../services/workspaceFiles';
import { StoryNode } from '../views/storyNodes';
import { pickFolder } from '../util/folders';
import { commandRegistrar } from './run';
import { requireTrust } from '../services/trust';

export interface MemoryCommandDeps {
  readonly prds: PrdWorkspace;
  readonly memory: MemoryWorkspace;
  readonly storiesView: vscode.TreeView<unknown>;
  readonly log: vscode.LogOutputChannel;
}

export function registerMemoryCommands(context: vscode.ExtensionContext, deps: MemoryCommandDeps): void {
  const { prds, memory, storiesView, log } = deps;
  const reg = commandRegistrar(context, log);

  const pickMemory = async (hint?: unknown): Promise<FolderMemory | undefined> => {
    if (memory.list().length === 0) {
      throw new Error('Open a folder first: the agents\' memory lives in a workspace folder.');
    }
    return pickFolder({ hint, candidates: memory.list(), folderOf: (m) => m.folder, placeHolder: 'Which folder\'s memory?' });
  };

  /** Applies a progress.txt change (creating the file with the standard header when missing). */
  const editProgress = async (
    m: FolderMemory,
    compute: (text: string) => ReturnType<typeof addCodebasePattern>,
    appendForm: (text: string) => string | undefined,
  ): Promise<void> => {
    // The path rule: a progressPath leading outside the folder is refused with its message.
    const uri = await usableProgressUri(m);
    if (!(await exists(uri))) {
      await writeText(uri, freshProgressText(new Date()));
    }
    await editTextFile(uri, compute, { appendForm, readText: () => readText(uri) });
    memory.refreshAll();
  };

  reg(Commands.openAt, async (uri: vscode.Uri, line = 0) => {
    // The views' items name workspace files (a Pin entry's file comes from the Pin): never one outside.
    const checked = await checkInsideWorkspace(uri, 'file');
    if (checked instanceof Error) {
      throw checked;
    }
    const editor = await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: true });
    const pos = new vscode.Position(Math.max(0, Math.min(line, editor.document.lineCount - 1)), 0);
    editor.selection = new vscode.Selection(pos, pos);
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  });

  reg(Commands.refreshMemory, () => memory.refreshAll());

  reg(Commands.addPattern, async (textArg?: string, folderArg?: vscode.Uri) => {
    requireTrust('Adding a codebase pattern');
    const m = await pickMemory(folderArg);
    if (!m) {
      return undefined;
    }
    const pattern =
      typeof textArg === 'string'
        ? textArg
        : await vscode.window.showInputBox({
            title: 'Add a codebase pattern',
            prompt: 'A reusable pattern every iteration should know (it goes into "## Codebase Patterns" in progress.txt).',
            placeHolder: 'e.g. Use the sql<T> template for every aggregation query',
            validateInput: (v) => (v.trim() === '' ? 'Write the pattern' : undefined),
          });
    if (!pattern?.trim()) {
      return undefined;
    }
    await editProgress(m, (t) => addCodebasePattern(t, pattern), (t) => addCodebasePatternAppend(t, pattern));
    vscode.window.setStatusBarMessage('$(lightbulb) Codebase pattern added to progress.txt', 4000);
    return true;
  });

  /** The story a learning is about: the argument, the selected story, or a pick (default: the one last run). */
  const pickStory = async (m: FolderMemory, arg: unknown, title: string): Promise<{ id: string } | undefined> => {
    if (arg instanceof StoryNode) {
      return { id: arg.id };
    }
    if (typeof arg === 'string' && arg.trim() !== '') {
      return { id: arg.trim() };
    }
    const entry = prds.forFolder(m.folder.uri);
    const stories = entry?.analysis.doc.stories.filter((s) => s.id !== '') ?? [];
    const runs = parseRuns((await readText(joinRelative(m.folder.uri, RUNS_FILE))) ?? '').runs;
    const lastRun = runs.length > 0 ? runs[runs.length - 1].storyId : undefined;
    const selected = storiesView.selection[0] instanceof StoryNode ? (storiesView.selection[0] as StoryNode).id : undefined;
    const preferred = selected ?? lastRun;
    const items = stories.map((s) => ({
      label: s.id,
      description: s.title,
      detail: s.id === lastRun ? 'last run' : s.id === selected ? 'selected' : undefined,
    }));
    items.sort((a, b) => Number(b.label === preferred) - Number(a.label === preferred));
    if (items.length === 0) {
      const id = await vscode.window.showInputBox({ title, prompt: 'Story id (there is no readable prd.json)', validateInput: (v) => (v.trim() ? undefined : 'A story id') });
      return id ? { id: id.trim() } : undefined;
    }
    const pick = await vscode.window.showQuickPick(items, { title, placeHolder: 'Which story?' });
    return pick ? { id: pick.label } : undefined;
  };

  reg(Commands.addLearning, async (storyArg?: unknown, textArg?: string, folderArg?: vscode.Uri) => {
    requireTrust('Adding a learning');
    const m = await pickMemory(folderArg ?? (storyArg instanceof StoryNode ? storyArg.entry.folder.uri : undefined));
    if (!m) {
      return undefined;
    }
    const story = await pickStory(m, storyArg, 'Add a learning');
    if (!story) {
      return undefined;
    }
    const learning =
      typeof textArg === 'string'
        ? textArg
        : await vscode.window.showInputBox({
            title: `Add a learning for ${story.id}`,
            prompt: 'Something a future iteration should know. It goes under "Learnings for future iterations" in the story\'s newest progress entry.',
            validateInput: (v) => (v.trim() === '' ? 'Write the learning' : undefined),
          });
    if (!learning?.trim()) {
      return undefined;
    }
    const now = new Date();
    await editProgress(m, (t) => addLearning(t, story.id, learning, now), (t) => addLearningAppend(t, story.id, learning, now));
    vscode.window.setStatusBarMessage(`$(lightbulb) Learning added for ${story.id}`, 4000);
    return true;
  });

  reg(Commands.newProgressEntry, async (storyArg?: unknown, summaryArg?: string, folderArg?: vscode.Uri) => {
    requireTrust('Adding a progress entry');
    const m = await pickMemory(folderArg ?? (storyArg instanceof StoryNode ? storyArg.entry.folder.uri : undefined));
    if (!m) {
      return undefined;
    }
    const story = await pickStory(m, storyArg, 'New progress entry');
    if (!story) {
      return undefined;
    }
    const summary =
      typeof summaryArg === 'string'
        ? summaryArg
        : await vscode.window.showInputBox({ title: `New progress entry for ${story.id}`, prompt: 'What was done (optional; one line per bullet)' });
    if (summary === undefined) {
      return undefined;
    }
    const now = new Date();
    // The heading is `## <date time> - <story id>`, as SPEC and the original loop write it.
    const options = { summary: summary.trim() ? summary : undefined };
    await editProgress(m, (t) => newProgressEntry(t, story.id, now, options), (t) => newProgressEntryAppend(t, story.id, now, options));
    if (typeof summaryArg !== 'string') {
      const doc = await vscode.workspace.openTextDocument((await usableProgressUri(m)));
      const editor = await vscode.window.showTextDocument(doc);
      const end = new vscode.Position(doc.lineCount - 1, 0);
      editor.revealRange(new vscode.Range(end, end));
    }
    return true;
  });

  reg(Commands.addAgentsNote, async (target?: vscode.Uri, sectionArg?: string, noteArg?: string) => {
    requireTrust('Adding a note to AGENTS.md');
    const uri = target instanceof vscode.Uri ? target : vscode.window.activeTextEditor?.document.uri;
    if (!uri || uri.scheme !== 'file') {
      throw new Error('Open a file (or pick one in the Explorer) to add a note to its nearest AGENTS.md.');
    }
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder) {
      throw new Error('The file is not in a workspace folder.');
    }
    const stat = await vscode.workspace.fs.stat(uri);
    const isDir = (stat.type & vscode.FileType.Directory) !== 0;
    const fs = await import('node:fs');
    let agentsPath = nearestAgentsMd(uri.fsPath, (p) => fs.existsSync(p), folder.uri.fsPath, isDir);
    if (!agentsPath) {
      const dir = isDir ? uri.fsPath : path.dirname(uri.fsPath);
      const rel = vscode.workspace.asRelativePath(vscode.Uri.file(path.join(dir, 'AGENTS.md')), false);
      const create = noteArg !== undefined ? 'Create' : await vscode.window.showInformationMessage(`There is no AGENTS.md in ${path.basename(dir)} or above. Create ${rel}?`, { modal: true }, 'Create');
      if (create !== 'Create') {
        return undefined;
      }
      agentsPath = path.join(dir, 'AGENTS.md');
      await writeText(vscode.Uri.file(agentsPath), agentsMdSkeleton(path.basename(dir)));
    }
    const agentsUri = vscode.Uri.file(agentsPath);
    // An AGENTS.md that is a symlink leading outside the folder is neither read nor written.
    const agentsChecked = await checkInsideWorkspace(agentsUri, 'AGENTS.md');
    if (agentsChecked instanceof Error) {
      throw new Error(agentsChecked.message.replace(/it was not opened\.$/, 'no note was added.'));
    }
    const text = (await readText(agentsUri)) ?? '';
    let section = sectionArg;
    if (section === undefined) {
      const existing = listHeadings(text).filter((h) => h.level >= 2).map((h) => h.text);
      const names = [...new Set([...existing, ...AGENTS_MD_SECTIONS])];
      const pick = await vscode.window.showQuickPick(
        names.map((n) => ({ label: n, description: existing.includes(n) ? undefined : 'new section' })),
        { title: `Add a note to ${vscode.workspace.asRelativePath(agentsUri, false)}`, placeHolder: 'Under which heading?' },
      );
      section = pick?.label;
    }
    if (!section) {
      return undefined;
    }
    const note =
      noteArg ??
      (await vscode.window.showInputBox({
        title: `${vscode.workspace.asRelativePath(agentsUri, false)} › ${section}`,
        prompt: 'The note (a pattern, a gotcha, a dependency, how to test)',
        validateInput: (v) => (v.trim() === '' ? 'Write the note' : undefined),
      }));
    if (!note?.trim()) {
      return undefined;
    }
    await editTextFile(agentsUri, (t) => insertNote(t, section, note));
    memory.refreshAll();
    vscode.window.setStatusBarMessage(`$(book) Note added to ${vscode.workspace.asRelativePath(agentsUri, false)}`, 4000);
    return agentsUri;
  });

  reg(Commands.searchPin, async () => {
    const m = await pickMemory();
    const pin = m?.pin;
    if (!m || !pin) {
      const go = await vscode.window.showInformationMessage('There is no Pin (specs/INDEX.md) yet.', 'Generate the Pin');
      if (go) {
        await vscode.commands.executeCommand(Commands.generatePin);
      }
      return undefined;
    }
    type Item = vscode.QuickPickItem & { file?: string; module?: string };
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = 'Search the Pin';
    qp.placeholder = 'Type words (a feature, a library, a synonym) to find the modules that already do it';
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    const all = (): Item[] =>
      pin.doc.modules.map((mod) => ({ label: `$(symbol-module) ${mod.name}`, description: mod.keywords.join(', '), detail: mod.files.join(', '), module: mod.name }));
    qp.items = all();
    qp.onDidChangeValue((value) => {
      if (value.trim() === '') {
        qp.items = all();
        return;
      }
      const matches = matchPin(pin.doc, value);
      // Ranked matches first; VS Code's own fuzzy filter still applies to what we show.
      qp.items = matches.map((x) => ({
        label: `$(symbol-module) ${x.module.name}`,
        description: `matches ${x.matched.join(', ')}`,
        detail: x.module.files.join(', '),
        module: x.module.name,
        alwaysShow: true,
      }));
    });
    const picked = await new Promise<Item | undefined>((resolve) => {
      qp.onDidAccept(() => resolve(qp.selectedItems[0]));
      qp.onDidHide(() => resolve(undefined));
      qp.show();
    });
    qp.dispose();
    const mod = pin.doc.modules.find((x) => x.name === picked?.module);
    if (!mod) {
      return undefined;
    }
    const files = [...mod.files, ...(mod.spec ? [mod.spec] : [])];
    const file =
      files.length === 1
        ? files[0]
        : (await vscode.window.showQuickPick(files.map((f) => ({ label: f, description: f === mod.spec ? 'spec' : undefined })), { title: mod.name, placeHolder: 'Open which file?' }))?.label;
    if (file) {
      // The Pin is a workspace file: a path in it that leads outside the folder is not opened.
      const target = await resolveSettingPath(m.folder.uri, file.replace(/\/$/, ''), "Pin's file", 'opened');
      if (target instanceof Error) {
        throw target;
      }
      await vscode.window.showTextDocument(joinRelative(m.folder.uri, file.replace(/\/$/, '')));
    }
    return mod.name;
  });
}
