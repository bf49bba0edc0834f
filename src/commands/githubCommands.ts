/**
 * Commands of the GitHub memory layer: Refresh, Show Issue #…, Sign in, open an artifact,
 * Self-heal (one node, one issue, or all), and Link to Issue from an open thoughts/shared document.
 * Posting needs a trusted workspace (declared in needs.ts, checked by the registrar) and a
 * confirmation that shows the exact comment.
 */
import * as vscode from 'vscode';
import type { ArtifactEntry, IssueArtifacts } from '../core/artifacts/issueArtifacts';
import { HEADERS, KIND_LABELS } from '../core/artifacts/protocol';
import { artifactOfPath } from '../core/artifacts/discovery';
import { issueUrl } from '../core/artifacts/url';
import { Commands } from '../constants';
import type { GitHubAuth } from '../services/githubAuth';
import type { GitHubWorkspace } from '../services/githubWorkspace';
import type { IssueTreeNode, IssuesTreeProvider } from '../views/issuesTree';
import { confirm } from '../services/confirm';
import { commandRegistrar } from './registrar';

export interface GitHubCommandDeps {
  readonly github: GitHubWorkspace;
  readonly auth: GitHubAuth;
  readonly tree: IssuesTreeProvider;
  readonly log: vscode.LogOutputChannel;
}

function folderOf(uri?: vscode.Uri): vscode.WorkspaceFolder | undefined {
  return (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? vscode.workspace.workspaceFolders?.[0];
}

/** An issue (and optionally one of its on-disk documents) named without a tree node. */
export interface IssueRef {
  readonly folder?: vscode.Uri;
  readonly issue: number;
  readonly path?: string;
}

export function registerGitHubCommands(context: vscode.ExtensionContext, deps: GitHubCommandDeps): void {
  const { github, log } = deps;
  const reg = commandRegistrar(context, log);

  const resolveRef = (ref?: IssueRef): IssueTreeNode | undefined => {
    const folder = ref && folderOf(ref.folder);
    const f = folder && github.forFolder(folder);
    const issue = f?.issues.find((i) => i.number === ref?.issue);
    if (!f || !issue) {
      return undefined;
    }
    const artifact = ref?.path ? issue.artifacts.find((a) => a.path === ref.path) : undefined;
    return artifact ? { kind: 'artifact', folder: f, issue, artifact } : { kind: 'issue', folder: f, issue };
  };

  const heal = async (folder: vscode.WorkspaceFolder, issues: { issue: IssueArtifacts; only?: ArtifactEntry[] }[]): Promise<number> => {
    const items = issues.flatMap(({ issue, only }) => (only ?? issue.artifacts).filter((a) => a.status === 'on-disk').map((a) => ({ issue: issue.number, a })));
    if (items.length === 0) {
      void vscode.window.showInformationMessage('Nothing to self-heal: every document found on disk is linked.');
      return 0;
    }
    const repo = github.forFolder(folder)?.repo;
    if (!repo) {
      throw new Error(`${folder.name} has no GitHub repository (no GitHub "origin" remote, and ralph.github.repository is empty): there is no issue to post to.`);
    }
    // The exact text of every comment, as it will be posted.
    const planned = await github.selfHealPreview(folder, issues.map(({ issue, only }) => ({ issue: issue.number, candidates: (only ?? issue.artifacts).filter((a) => a.status === 'on-disk') })));
    if (planned.length === 0) {
      void vscode.window.showInformationMessage('Nothing to self-heal: no document found on disk can be linked.');
      return 0;
    }
    const where = `${repo.owner}/${repo.repo}`;
    const message =
      planned.length === 1
        ? `Post this comment to ${where}#${planned[0].issue}?`
        : `Post these ${planned.length} comments to ${where}?`;
    const what = `${planned.map(({ issue, comment }) => `${planned.length > 1 ? `#${issue}:\n` : ''}${comment.body}`).join('\n\n———\n\n')}\n\nA link already posted is never posted again.`;
    if (!(await confirm(message, 'Post Comment', { detail: what }))) {
      return 0;
    }
    let posted = 0;
    await vscode.window.withProgress({ location: { viewId: 'ralph.issues' }, title: 'Posting artifact comments' }, async () => {
      for (const { issue, only } of issues) {
        posted += (await github.selfHeal(folder, issue.number, only)).length;
      }
    });
    void vscode.window.showInformationMessage(posted === 0 ? 'Already linked: nothing was posted.' : `Posted ${posted} comment${posted === 1 ? '' : 's'}.`);
    return posted;
  };

  reg(Commands.githubRefresh, () => github.refresh());

  reg(Commands.githubSignIn, async () => {
    const access = await deps.auth.access(true);
    if (access) {
      await github.refresh({ resetClients: true });
    }
  });

  reg(Commands.githubShowIssue, async (arg?: number | string) => {
    const folder = folderOf();
    if (!folder) {
      return;
    }
    const raw =
      arg !== undefined
        ? String(arg)
        : await vscode.window.showInputBox({
            title: 'Show Issue',
            prompt: 'Issue number (42, #42 or GH-0042)',
            validateInput: (v) => (/^\s*(#|GH-)?\d{1,9}\s*$/i.test(v) ? undefined : 'An issue number, e.g. 42'),
          });
    const m = raw ? /^\s*(?:#|GH-)?0*(\d{1,9})\s*$/i.exec(raw) : null;
    if (!m || Number(m[1]) <= 0) {
      return;
    }
    await github.addIssue(folder, Number(m[1]));
  });

  reg(Commands.githubOpenArtifact, async (folderUri: vscode.Uri, path?: string, url?: string) => {
    if (path) {
      await vscode.window.showTextDocument(vscode.Uri.joinPath(folderUri, ...path.split('/')), { preview: true });
    } else if (url && /^https?:\/\//.test(url)) {
      await vscode.env.openExternal(vscode.Uri.parse(url, true));
    }
  });

  reg(Commands.githubOpenIssue, async (node?: IssueTreeNode) => {
    if (node?.kind === 'issue' && node.folder.repo) {
      await vscode.env.openExternal(vscode.Uri.parse(issueUrl(node.folder.repo, node.issue.number), true));
    }
  });

  reg(Commands.githubSelfHeal, async (arg?: IssueTreeNode | IssueRef) => {
    const node = arg && 'kind' in arg ? arg : resolveRef(arg);
    if (!node || (node.kind !== 'artifact' && node.kind !== 'issue')) {
      return 0;
    }
    return heal(node.folder.folder, [{ issue: node.issue, only: node.kind === 'artifact' ? [node.artifact] : undefined }]);
  });

  reg(Commands.githubSelfHealAll, async () => {
    let total = 0;
    const skipped: string[] = [];
    for (const f of github.list()) {
      if (!f.notice) {
        total += await heal(f.folder, f.issues.filter((i) => !i.error).map((issue) => ({ issue })));
      } else if (f.issues.some((i) => i.artifacts.some((a) => a.status === 'on-disk'))) {
        skipped.push(`${f.folder.name}: ${f.notice.message}`);
      }
    }
    if (skipped.length > 0) {
      // Documents wait for a link but cannot get one here: say why rather than do nothing.
      void vscode.window.showInformationMessage(`Self-heal posted nothing for ${skipped.join(' ')}`);
    }
    return total;
  });

  reg(Commands.githubLinkToIssue, async (uri?: vscode.Uri) => {
    const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
    const folder = target && vscode.workspace.getWorkspaceFolder(target);
    if (!target || !folder) {
      void vscode.window.showWarningMessage('Open a document in thoughts/shared/{research,plans,reviews} of a workspace folder first.');
      return false;
    }
    const rel = vscode.workspace.asRelativePath(target, false);
    const art = artifactOfPath(rel);
    if (!art) {
      void vscode.window.showWarningMessage(`${rel} is not an artifact: its name needs GH-<number> and it must be in thoughts/shared/research, plans or reviews.`);
      return false;
    }
    const detail = `Posts a comment:\n\n${HEADERS[art.kind]}\n\n<the document's URL on the default branch>`;
    if (!(await confirm(`Link ${rel} to issue #${art.issue} as its ${KIND_LABELS[art.kind].toLowerCase()}?`, 'Post Comment', { detail }))) {
      return false;
    }
    const r = await github.linkDocument(folder, target);
    void vscode.window.showInformationMessage(r.posted ? `Linked to #${r.issue}: ${r.url}` : `#${r.issue} already links ${rel}: nothing was posted.`);
    return r.posted;
  });
}
