/**
 * The one tree snapshot of the views (RalphApi.storiesSnapshot / runsSnapshot / memorySnapshot /
 * issuesSnapshot): what a user sees. Used only by the test API (src/testApi.ts), so it is part of
 * the test build alone.
 */
import * as vscode from 'vscode';
import type { TreeSnapshotNode } from '../api';

interface SnapshotSource<T> {
  getTreeItem(node: T): vscode.TreeItem | Thenable<vscode.TreeItem>;
  getChildren(node?: T): vscode.ProviderResult<T[]>;
}

/**
 * The provider's tree (any view: its items and children may be at hand or promised), expanded to
 * `depth` (1 = top-level nodes only) through the nodes a user can expand, as labels, descriptions and icons.
 */
export async function snapshotTree<T>(provider: SnapshotSource<T>, depth = 1): Promise<TreeSnapshotNode[]> {
  const walk = async (nodes: readonly T[], level: number): Promise<TreeSnapshotNode[]> => {
    const out: TreeSnapshotNode[] = [];
    for (const n of nodes) {
      const item = await provider.getTreeItem(n);
      const icon = item.iconPath instanceof vscode.ThemeIcon ? item.iconPath : undefined;
      const expandable = item.collapsibleState !== undefined && item.collapsibleState !== vscode.TreeItemCollapsibleState.None;
      out.push({
        label: typeof item.label === 'string' ? item.label : item.label?.label ?? '',
        description: typeof item.description === 'string' ? item.description : undefined,
        icon: icon?.id,
        iconColor: (icon?.color as { id?: string } | undefined)?.id,
        contextValue: item.contextValue,
        tooltip: typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value,
        children: level < depth && expandable ? await walk((await provider.getChildren(n)) ?? [], level + 1) : undefined,
      });
    }
    return out;
  };
  return walk((await provider.getChildren()) ?? [], 1);
}
