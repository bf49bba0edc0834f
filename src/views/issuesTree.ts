/**
 * The Issues view: each issue (number, title, state, labels, next phase) with one node per
 * artifact kind — linked (from a comment), on disk but not linked (found by file name), or
 * missing. Selecting an artifact opens the local document, or its GitHub page when there is no
 * local copy. Signed out, offline or rate-limited, a first node says so and the view shows the
 * documents on disk.
 */
import * as vscode from 'vscode';
import { ageOf } from '../core/artifacts/commentCache';
import { type ArtifactEntry, type IssueArtifacts, PHASE_LABELS } from '../core/artifacts/issueArtifacts';
import { KIND_LABELS } from '../core/artifacts/protocol';
import { issueUrl } from '../core/artifacts/url';
import { Commands } from '../constants';
import type { FolderIssues, GitHubWorkspace, Notice } from '../services/githubWorkspace';
import { Disposable } from '../util/disposable';

export type IssueTreeNode =
  | { kind: 'folder'; folder: FolderIssues }
  | { kind: 'notice'; folder: FolderIssues; notice: Notice }
  | { kind: 'issue'; folder: FolderIssues; issue: IssueArtifacts }
  | { kind: 'artifact'; folder: FolderIssues; issue: IssueArtifacts; artifact: ArtifactEntry }
  | { kind: 'warning'; folder: FolderIssues; issue: IssueArtifacts; text: string }
  | { kind: 'empty'; text: string };

const noticeIcons: Record<Notice['kind'], string> = {
  'signed-out': 'github',
  offline: 'cloud-offline' as string,
  'rate-limited': 'watch',
  'no-repo': 'repo',
  auth: 'key',
  error: 'warning',
};

function fileName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** A time as the user's clock shows it: `2026-11-25 21:40`. */
function localTime(iso: string): string {
  const d = new Date(iso);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** The tree item of an artifact: what it is, where it is, and what selecting it does. */
export function artifactItem(folder: FolderIssues, issue: IssueArtifacts, a: ArtifactEntry): vscode.TreeItem {
  const item = new vscode.TreeItem(KIND_LABELS[a.kind], vscode.TreeItemCollapsibleState.None);
  const where = a.path ? fileName(a.path) : a.url ? a.url.replace(/^https?:\/\//, '') : '';
  // Offline, a link read from the cached comments says so, and how old it is.
  const cached = a.status === 'linked' ? issue.cachedAt : undefined;
  const status = a.status === 'on-disk' ? 'on disk, not linked' : cached ? `linked (cached ${ageOf(cached, new Date())})` : a.status;
  const verdict = a.verdict ? ` · ${a.verdict}` : '';
  item.description = `${status}${verdict}${where ? ` · ${where}` : ''}`;
  item.id = `artifact:${folder.folder.uri.toString()}:${issue.number}:${a.kind}:${a.status}:${a.path ?? a.url ?? ''}`;
  if (a.status === 'linked') {
    item.iconPath = new vscode.ThemeIcon(a.path ? 'pass-filled' : 'link-external', new vscode.ThemeColor('testing.iconPassed'));
  } else if (a.status === 'on-disk') {
    item.iconPath = new vscode.ThemeIcon('file', new vscode.ThemeColor('list.warningForeground'));
  } else {
    item.iconPath = new vscode.ThemeIcon('circle-large-outline', new vscode.ThemeColor('disabledForeground'));
  }
  if (a.verdict === 'NEEDS_ITERATION') {
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  }
  const tip = new vscode.MarkdownString(undefined, true);
  tip.isTrusted = false;
  tip.appendText(`${KIND_LABELS[a.kind]} of #${issue.number}: ${status}${a.verdict ? ` (${a.verdict})` : ''}\n\n`);
  if (a.path) {
    tip.appendText(`${a.path}\n\n`);
  }
  if (a.url) {
    tip.appendText(`${a.url}\n\n`);
  }
  if (cached) {
    tip.appendText(`GitHub could not be reached: linked by a comment fetched ${localTime(cached)}.\n\n`);
  }
  if (a.remoteReason) {
    tip.appendText(`Not opened as a local file: ${a.remoteReason}.\n\n`);
  }
  for (const s of a.summary ?? []) {
    tip.appendText(`${s}\n`);
  }
  if (a.status === 'on-disk') {
    tip.appendText(
      folder.repo
        ? '\nFound by its file name but no issue comment links it: Self-heal posts the comment.'
        : '\nFound by its file name but no issue comment links it. This folder has no GitHub repository, so there is nowhere to post the link.',
    );
  }
  item.tooltip = tip;
  item.contextValue = `artifact ${onDiskToken(folder, a)}`;
  if (a.path || a.url) {
    item.command = { command: Commands.githubOpenArtifact, title: 'Open', arguments: [folder.folder.uri, a.path, a.url] };
  }
  if (a.path) {
    item.resourceUri = vscode.Uri.joinPath(folder.folder.uri, ...a.path.split('/'));
  }
  return item;
}

export class IssuesTreeProvider extends Disposable implements vscode.TreeDataProvider<IssueTreeNode> {
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.onDidChangeEmitter.event;

  constructor(
    private readonly github: GitHubWorkspace,
    /** Each published story's state on GitHub (its run, its pull request: services/githubFollow.ts). */
    private readonly remote?: { stateOf(folder: vscode.Uri, storyId: string): { readonly label: string } | undefined; readonly onDidChange: vscode.Event<void> },
  ) {
    super();
    this.register(github.onDidChange(() => this.onDidChangeEmitter.fire()));
    if (remote) {
      this.register(remote.onDidChange(() => this.onDidChangeEmitter.fire()));
    }
  }

  /**
   * The view's header says when a local stand-in replaces GitHub (`ralph.github.standInUrl`), so
   * what the view shows is never taken for GitHub's; a refused setting is said at the top.
   */
  showStandInOn(view: vscode.TreeView<IssueTreeNode>): void {
    const update = (): void => {
      const s = this.github.standIn();
      view.description = s.url ? `GitHub stand-in at ${s.url}` : undefined;
      view.message = s.problem;
    };
    update();
    this.register(this.github.onDidChange(update));
  }

  getTreeItem(node: IssueTreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(node.folder.folder.name, vscode.TreeItemCollapsibleState.Expanded);
        item.description = node.folder.repo ? `${node.folder.repo.owner}/${node.folder.repo.repo}` : undefined;
        item.iconPath = new vscode.ThemeIcon('root-folder');
        item.contextValue = 'folder';
        return item;
      }
      case 'notice': {
        const n = node.notice;
        const label =
          n.kind === 'signed-out'
            ? 'Sign in to GitHub'
            : n.kind === 'rate-limited'
              ? 'Rate-limited: showing documents on disk only'
              : n.kind === 'offline'
                ? node.folder.issues.some((i) => i.cachedAt)
                  ? 'Offline: showing cached links and documents on disk'
                  : 'Offline: showing documents on disk only'
                : n.kind === 'auth'
                  ? 'GitHub refused the session: sign in again'
                  : n.kind === 'no-repo'
                    ? 'No GitHub repository: documents on disk only'
                    : 'GitHub could not be read: documents on disk only';
        const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
        item.description = n.kind === 'signed-out' ? 'documents on disk only' : undefined;
        item.tooltip = n.message;
        item.iconPath = new vscode.ThemeIcon(noticeIcons[n.kind]);
        item.contextValue = `notice ${n.kind}`;
        item.id = `notice:${node.folder.folder.uri.toString()}:${n.kind}`;
        if (n.kind === 'signed-out' || n.kind === 'auth') {
          item.command = { command: Commands.githubSignIn, title: 'Sign in to GitHub' };
        } else if (n.kind === 'no-repo') {
          item.command = { command: 'workbench.action.openSettings', title: 'Open Settings', arguments: ['ralph.github.repository'] };
        } else {
          item.command = { command: Commands.githubRefresh, title: 'Refresh' };
        }
        return item;
      }
      case 'issue': {
        const i = node.issue;
        const item = new vscode.TreeItem(`#${i.number}${i.title ? ` ${i.title}` : ''}`, vscode.TreeItemCollapsibleState.Expanded);
        // A published story's run or pull request, after the issue's own state (issue 20).
        const remote = (node.folder.storiesByIssue.get(i.number) ?? []).map((id) => this.remote?.stateOf(node.folder.folder.uri, id)?.label).find((l) => l !== undefined);
        const parts = [i.state, remote && `☁ ${remote}`, PHASE_LABELS[i.phase], ...i.labels].filter((x): x is string => !!x);
        if (i.error) {
          parts.unshift(i.cachedAt ? `cached ${ageOf(i.cachedAt, new Date())}` : 'disk only');
        }
        item.description = parts.join(' · ');
        item.iconPath = i.error
          ? new vscode.ThemeIcon('issue-draft', new vscode.ThemeColor('list.warningForeground'))
          : i.state === 'closed'
            ? new vscode.ThemeIcon('issue-closed', new vscode.ThemeColor('charts.purple'))
            : new vscode.ThemeIcon('issues', new vscode.ThemeColor('charts.green'));
        const tip = new vscode.MarkdownString(undefined, true);
        tip.isTrusted = false;
        tip.appendText(`#${i.number} ${i.title ?? ''}\n\n${PHASE_LABELS[i.phase]}\n`);
        const stories = node.folder.storiesByIssue.get(i.number);
        if (stories?.length) {
          tip.appendText(`\nStories: ${stories.join(', ')}\n`);
        }
        if (i.error) {
          tip.appendText(`\n${i.error}\n`);
        }
        if (i.cachedAt) {
          tip.appendText(`\nLinks as read from GitHub at ${localTime(i.cachedAt)}.\n`);
        }
        item.tooltip = tip;
        item.id = `issue:${node.folder.folder.uri.toString()}:${i.number}`;
        // Self-heal is offered only where it can post: an issue of a folder with a GitHub repository.
        item.contextValue = `issue${node.folder.repo && i.artifacts.some((a) => a.status === 'on-disk') ? ' healable' : ''}`;
        return item;
      }
      case 'artifact':
        return artifactItem(node.folder, node.issue, node.artifact);
      case 'warning': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        item.tooltip = node.text;
        item.contextValue = 'issueWarning';
        return item;
      }
      case 'empty': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('info');
        item.command = { command: Commands.githubShowIssue, title: 'Show Issue #…' };
        item.contextValue = 'empty';
        return item;
      }
    }
  }

  getChildren(node?: IssueTreeNode): IssueTreeNode[] {
    if (!node) {
      const all = this.github.list();
      if (all.length > 1) {
        return all.map((folder) => ({ kind: 'folder', folder }));
      }
      return all.length === 1 ? this.folderChildren(all[0]) : [];
    }
    if (node.kind === 'folder') {
      return this.folderChildren(node.folder);
    }
    if (node.kind === 'issue') {
      return [
        ...node.issue.artifacts.map((artifact): IssueTreeNode => ({ kind: 'artifact', folder: node.folder, issue: node.issue, artifact })),
        ...node.issue.warnings.map((text): IssueTreeNode => ({ kind: 'warning', folder: node.folder, issue: node.issue, text })),
      ];
    }
    return [];
  }

  private folderChildren(folder: FolderIssues): IssueTreeNode[] {
    const out: IssueTreeNode[] = [];
    if (folder.notice) {
      out.push({ kind: 'notice', folder, notice: folder.notice });
    }
    out.push(...folder.issues.map((issue): IssueTreeNode => ({ kind: 'issue', folder, issue })));
    if (folder.issues.length === 0) {
      out.push({ kind: 'empty', text: 'No issues: give a story an "issue" field or GH-<n>, or Show Issue #…' });
    }
    return out;
  }
}

/** The GitHub page of an issue of a folder. */
export function issuePage(folder: FolderIssues, issue: number): string | undefined {
  return folder.repo ? issueUrl(folder.repo, issue) : undefined;
}

/**
 * The context-value word of an artifact's status: `onDisk` (a document self-heal can link) only
 * when the folder has a GitHub repository to post to; `onDiskNoRepo` otherwise (no Self-heal).
 */
export function onDiskToken(folder: Pick<FolderIssues, 'repo'>, a: Pick<ArtifactEntry, 'status'>): string {
  return a.status !== 'on-disk' ? a.status : folder.repo ? 'onDisk' : 'onDiskNoRepo';
}
