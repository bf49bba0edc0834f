/**
 * The Memory view: what the agents read. Codebase Patterns; learnings grouped by story (newest
 * first); the AGENTS.md files with their headings; the Pin's modules. Selecting an item opens the
 * file at its line.
 */
import * as vscode from 'vscode';
import { pinFormatNote } from '../core/pin/format';
import { describeLearningCounts, learningsByStory, type StoryLearnings } from '../core/progress/parse';
import { Commands } from '../constants';
import type { FolderMemory, MemoryWorkspace } from '../services/memoryWorkspace';
import { joinRelative } from '../services/workspaceFiles';
import { Disposable } from '../util/disposable';

export type MemoryNode =
  | { kind: 'folder'; memory: FolderMemory }
  | { kind: 'section'; section: 'patterns' | 'learnings' | 'agents' | 'pin'; memory: FolderMemory }
  | { kind: 'line'; label: string; description?: string; uri: vscode.Uri; line: number; icon: string; tooltip?: string; contextValue: string; children?: MemoryNode[] }
  | { kind: 'message'; label: string; icon: string; command?: vscode.Command; description?: string; tooltip?: string };

export class MemoryTreeProvider extends Disposable implements vscode.TreeDataProvider<MemoryNode> {
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.onDidChangeEmitter.event;

  constructor(private readonly memory: MemoryWorkspace) {
    super();
    this.register(memory.onDidChange(() => this.onDidChangeEmitter.fire()));
  }

  getTreeItem(node: MemoryNode): vscode.TreeItem {
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(node.memory.folder.name, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon('root-folder');
        return item;
      }
      case 'section':
        return this.sectionItem(node.section, node.memory);
      case 'line': {
        const item = new vscode.TreeItem(node.label, node.children && node.children.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.description = node.description;
        item.iconPath = new vscode.ThemeIcon(node.icon);
        item.tooltip = node.tooltip ?? node.label;
        item.contextValue = node.contextValue;
        item.command = { command: Commands.openAt, title: 'Open', arguments: [node.uri, node.line] };
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon(node.icon);
        item.description = node.description;
        item.tooltip = node.tooltip;
        item.command = node.command;
        item.contextValue = 'message';
        return item;
      }
    }
  }

  getChildren(node?: MemoryNode): MemoryNode[] {
    if (!node) {
      const all = this.memory.list();
      if (all.length > 1) {
        return all.map((memory) => ({ kind: 'folder', memory }));
      }
      return all.length === 1 ? sections(all[0]) : [];
    }
    switch (node.kind) {
      case 'folder':
        return sections(node.memory);
      case 'section':
        return sectionChildren(node.section, node.memory);
      case 'line':
        return node.children ?? [];
      default:
        return [];
    }
  }

  private sectionItem(section: 'patterns' | 'learnings' | 'agents' | 'pin', m: FolderMemory): vscode.TreeItem {
    const p = m.progress?.doc;
    const noProgress = m.refused?.progress ? 'not read: see why below' : 'no progress.txt';
    const labels = {
      patterns: ['Codebase Patterns', 'lightbulb', p?.patterns ? `${p.patterns.items.length}` : p ? 'no section yet' : noProgress],
      // Counts what the list below shows: the learnings of every story, compacted history included.
      learnings: ['Learnings', 'mortar-board', p ? describeLearningCounts(learningsByStory(p)) : noProgress],
      agents: ['AGENTS.md', 'book', `${m.agents.length} file${m.agents.length === 1 ? '' : 's'}`],
      pin: ['The Pin', 'pinned', m.pin ? (pinFormatNote(m.pin.doc, '') ? 'no ### Module entries' : `${m.pin.doc.modules.length} modules`) : m.refused?.pin ? 'not read: see why below' : 'no specs/INDEX.md'],
    } as const;
    const [label, icon, description] = labels[section];
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Expanded);
    item.iconPath = new vscode.ThemeIcon(icon);
    item.description = description;
    item.contextValue = `memorySection ${section}`;
    item.id = `memory:${m.folder.uri.toString()}:${section}`;
    return item;
  }
}

function sections(m: FolderMemory): MemoryNode[] {
  return (['patterns', 'learnings', 'agents', 'pin'] as const).map((section) => ({ kind: 'section', section, memory: m }));
}

function sectionChildren(section: 'patterns' | 'learnings' | 'agents' | 'pin', m: FolderMemory): MemoryNode[] {
  const progress = m.progress;
  const problems = progress?.doc.problems.filter((p) => p.severity === 'error') ?? [];
  const refusal = section === 'pin' ? m.refused?.pin : section === 'agents' ? undefined : m.refused?.progress;
  if (refusal) {
    // The setting leads outside the folder: nothing was read, and this says why (never silent).
    const setting = section === 'pin' ? 'ralph.pinPath' : 'ralph.progressPath';
    return [{ kind: 'message', label: refusal, icon: 'error', tooltip: `${refusal}\nPaths from settings must stay inside the workspace folder (symbolic links are followed). Change ${setting}.`, command: { command: 'workbench.action.openSettings', title: 'Open Settings', arguments: [setting] } }];
  }
  switch (section) {
    case 'patterns': {
      if (!progress) {
        return [{ kind: 'message', label: 'No progress.txt yet: add a pattern to start one', icon: 'add', command: { command: Commands.addPattern, title: 'Add Codebase Pattern' } }];
      }
      if (problems.length > 0) {
        return problems.map((p) => ({ kind: 'message', label: p.message, icon: 'error' }));
      }
      if (!progress.doc.patterns || progress.doc.patterns.items.length === 0) {
        return [{ kind: 'message', label: 'No Codebase Patterns yet: add one', icon: 'add', command: { command: Commands.addPattern, title: 'Add Codebase Pattern' } }];
      }
      return progress.doc.patterns.items.map((item) => ({
        kind: 'line',
        label: item.text,
        uri: progress.uri,
        line: item.line,
        icon: 'lightbulb',
        tooltip: [item.text, ...item.more].join('\n'),
        contextValue: 'pattern',
      }));
    }
    case 'learnings': {
      if (!progress) {
        return [{ kind: 'message', label: 'No progress.txt yet', icon: 'info' }];
      }
      const groups = learningsByStory(progress.doc);
      if (groups.length === 0) {
        return [{ kind: 'message', label: 'No learnings yet', icon: 'info' }];
      }
      return groups.map((g) => learningGroup(g, progress.uri));
    }
    case 'agents':
      if (m.agents.length === 0) {
        return [{ kind: 'message', label: 'No AGENTS.md yet: add a note from a file\'s context menu', icon: 'info' }];
      }
      return m.agents.map((a) => ({
        kind: 'line',
        label: vscode.workspace.asRelativePath(a.uri, false),
        uri: a.uri,
        line: 0,
        icon: 'book',
        contextValue: 'agentsFile',
        children: a.headings.map((h) => ({
          kind: 'line' as const,
          label: h.text,
          description: `${'#'.repeat(h.level)} · line ${h.line + 1}`,
          uri: a.uri,
          line: h.line,
          icon: 'symbol-string',
          contextValue: 'agentsHeading',
        })),
      }));
    case 'pin': {
      const pin = m.pin;
      if (!pin) {
        return [{ kind: 'message', label: 'No Pin yet: generate one', icon: 'add', command: { command: Commands.generatePin, title: 'Generate the Pin' } }];
      }
      const note = pinFormatNote(pin.doc, vscode.workspace.asRelativePath(pin.uri, false));
      if (note) {
        // A table or a checklist: say so, and offer to add entries (what is there is kept).
        return [
          { kind: 'message', label: note, icon: 'warning' },
          { kind: 'message', label: 'Generate the Pin: add module entries', icon: 'add', command: { command: Commands.generatePin, title: 'Generate the Pin' } },
        ];
      }
      return pin.doc.modules.map((mod) => ({
        kind: 'line',
        label: mod.name,
        description: mod.keywords.slice(0, 6).join(', '),
        uri: pin.uri,
        line: mod.line ?? 0,
        icon: 'symbol-module',
        tooltip: [mod.name, ...mod.description, `Keywords: ${mod.keywords.join(', ')}`, `Files: ${mod.files.join(', ')}`, ...(mod.spec ? [`Spec: ${mod.spec}`] : [])].join('\n'),
        contextValue: 'pinModule',
        children: [
          ...mod.files.map((f) => pinFileNode(m, pin.outside, f, undefined, 'file', 'pinFile')),
          ...(mod.spec ? [pinFileNode(m, pin.outside, mod.spec, 'spec', 'book', 'pinSpec')] : []),
        ],
      }));
    }
  }
}

/** A file a Pin module names; one that leads outside the folder is shown, marked, and never opened. */
function pinFileNode(m: FolderMemory, outside: ReadonlyMap<string, string>, rel: string, description: string | undefined, icon: string, contextValue: string): MemoryNode {
  const refusal = outside.get(rel.replace(/\/$/, ''));
  if (refusal) {
    return { kind: 'message', label: rel, description: `${description ? `${description} · ` : ''}leads outside the workspace: not opened`, icon: 'error', tooltip: refusal };
  }
  return { kind: 'line', label: rel, description, uri: joinRelative(m.folder.uri, rel), line: 0, icon, contextValue };
}

/** A story's learnings as a node with one child per learning (also used under stories in the Stories view). */
export function learningGroup(g: StoryLearnings, uri: vscode.Uri): MemoryNode {
  return {
    kind: 'line',
    label: g.storyId,
    description: `${g.learnings.length} learning${g.learnings.length === 1 ? '' : 's'}${g.newestDate ? ` · ${g.newestDate}` : ''}`,
    uri,
    line: g.newestEntryLine,
    icon: 'mortar-board',
    contextValue: 'learningStory',
    children: g.learnings.map((l) => ({
      kind: 'line' as const,
      label: l.text,
      description: l.compacted ? 'compacted' : l.date,
      uri,
      line: l.line,
      icon: 'lightbulb-autofix',
      tooltip: [l.text, ...l.more].join('\n'),
      contextValue: 'learning',
    })),
  };
}
