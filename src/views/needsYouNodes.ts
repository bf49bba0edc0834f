/**
 * The Needs You node at the top of the Stories view while a parallel run has items open (issue
 * 19): the header and one row per item (src/core/parallel/needsYouRows.ts), whose actions
 * (Retry, Skip Story, Show Terminal, Open Worktree, Open Conflict) come from the row's
 * `contextValue` words.
 */
import * as vscode from 'vscode';
import { needsYouHeader, needsYouRow } from '../core/parallel/needsYouRows';
import type { NeedsYouEntry } from '../services/parallel/parallelService';

export function needsYouInput(e: NeedsYouEntry): Parameters<typeof needsYouRow>[0] {
  return { folderKey: e.folder.uri.toString(), storyId: e.storyId, why: e.why, message: e.message, conflictFiles: e.conflictFiles, detail: e.detail, recovered: e.recovered, commits: e.commits?.length };
}

export class NeedsYouNode {
  readonly kind = 'needsYou';
  readonly parent = undefined;
  constructor(
    readonly folderKey: string,
    readonly items: readonly NeedsYouEntry[],
  ) {}

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(needsYouHeader(this.items.length), vscode.TreeItemCollapsibleState.Expanded);
    item.id = `needsYou:${this.folderKey}`;
    item.iconPath = new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('list.warningForeground'));
    item.contextValue = 'needsYou';
    item.tooltip = 'Stories of the parallel run that need you: retry, skip or resolve them.';
    // Read as its label first (VS Code would read the tooltip alone).
    item.accessibilityInformation = { label: `${item.label as string}: ${item.tooltip}` };
    return item;
  }

  children(): NeedsYouItemNode[] {
    return this.items.map((i) => new NeedsYouItemNode(this, i));
  }
}

export class NeedsYouItemNode {
  readonly kind = 'needsYouItem';
  constructor(
    readonly parent: NeedsYouNode,
    readonly item: NeedsYouEntry,
  ) {}

  treeItem(): vscode.TreeItem {
    const row = needsYouRow(needsYouInput(this.item));
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.id = `needsYouItem:${row.key}`;
    item.iconPath = new vscode.ThemeIcon(this.item.why === 'conflict' ? 'git-merge' : this.item.recovered ? 'repo-forked' : 'warning', new vscode.ThemeColor('list.warningForeground'));
    item.tooltip = row.tooltip;
    item.accessibilityInformation = { label: `${row.label}. ${row.tooltip}` };
    item.contextValue = ['needsYouItem', ...row.actions].join(' ');
    return item;
  }
}
