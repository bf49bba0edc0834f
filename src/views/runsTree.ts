/**
 * The Runs view: a summary line, the iterations newest first (outcome icon, story, duration), a
 * parallel loop's runs grouped under it by wave (src/core/runs/runGroups.ts), the failed runs by
 * failure signature ("3 iterations failed with: …", src/core/insights/signature.ts), and the archived
 * runs of previous features, whose files open read-only. Drawn from RunsWorkspace.
 */
import * as vscode from 'vscode';
import { groupBySignature, type SignatureGroup } from '../core/insights/signature';
import { groupRuns, mergeText, type RunGroup, type WaveGroup } from '../core/runs/runGroups';
import { formatDuration, RUNS_FILE, type RunOutcome, type RunRecord, summarizeRuns, summaryLine } from '../core/runs/runs';
import { Commands } from '../constants';
import type { Runner } from '../services/run/runner';
import type { RunsWorkspace } from '../services/runsWorkspace';
import { joinRelative, readText } from '../services/workspaceFiles';
import { Disposable } from '../util/disposable';

export const ARCHIVE_SCHEME = 'ralph-archive';

type RunsNode =
  | { kind: 'summary'; folder: vscode.WorkspaceFolder; text: string; bad: number }
  /** `under`: the failure signature group that shows the run a second time (tree ids must stay unique). */
  | { kind: 'run'; folder: vscode.WorkspaceFolder; run: RunRecord; index: number; under?: string }
  | { kind: 'loop'; folder: vscode.WorkspaceFolder; runs: readonly RunRecord[]; group: Extract<RunGroup, { kind: 'loop' }>; newest: boolean }
  | { kind: 'wave'; folder: vscode.WorkspaceFolder; runs: readonly RunRecord[]; loopId: string; wave: WaveGroup }
  | { kind: 'failures'; folder: vscode.WorkspaceFolder; runs: readonly RunRecord[]; groups: readonly SignatureGroup[] }
  | { kind: 'signature'; folder: vscode.WorkspaceFolder; runs: readonly RunRecord[]; group: SignatureGroup }
  | { kind: 'archives'; folder: vscode.WorkspaceFolder; names: string[] }
  | { kind: 'archive'; folder: vscode.WorkspaceFolder; name: string }
  | { kind: 'archiveFile'; folder: vscode.WorkspaceFolder; archive: string; file: string };

const outcomeIcons: Record<RunOutcome, [string, string | undefined, string]> = {
  passed: ['pass-filled', 'testing.iconPassed', 'story passes'],
  failed: ['error', 'testing.iconFailed', 'agent failed'],
  'no-progress': ['circle-slash', 'list.warningForeground', 'no progress'],
  stopped: ['debug-stop', 'list.warningForeground', 'stopped'],
  'false-complete': ['warning', 'list.warningForeground', 'false COMPLETE'],
  error: ['error', 'list.errorForeground', 'error'],
  'rate-limited': ['watch', 'list.warningForeground', 'rate-limited'],
};

/** A parallel run whose story passed in its worktree, but whose merge conflicted, failed its check or failed. */
const UNMERGED: [string, string, string] = ['git-merge', 'list.warningForeground', 'passed in its worktree, not merged'];

export class RunsTreeProvider extends Disposable implements vscode.TreeDataProvider<RunsNode> {
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.onDidChangeEmitter.event;

  constructor(
    private readonly runs: RunsWorkspace,
    private readonly runner: Runner,
  ) {
    super();
    this.register(runs.onDidChange(() => this.refresh()));
    // A run's row offers its terminal while the terminal is open.
    this.register(runner.onDidChangeTerminals(() => this.refresh()));
  }

  refresh(): void {
    this.onDidChangeEmitter.fire();
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'summary': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('graph');
        item.contextValue = 'runsSummary';
        item.description = (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? node.folder.name : undefined;
        item.tooltip = node.bad > 0 ? `${node.bad} unreadable line(s) in ${RUNS_FILE} were skipped.` : `From ${RUNS_FILE}`;
        return item;
      }
      case 'run': {
        const r = node.run;
        // A story that passed in its worktree but did not reach the feature branch is not green.
        const unmerged = r.parallel?.merge !== undefined && r.parallel.merge !== 'merged';
        const [codicon, color, words] = unmerged && r.outcome === 'passed' ? UNMERGED : (outcomeIcons[r.outcome] ?? outcomeIcons.error);
        const item = new vscode.TreeItem(`${r.storyId}${r.storyTitle ? `: ${r.storyTitle}` : ''}`, vscode.TreeItemCollapsibleState.None);
        item.id = `${node.under !== undefined ? `signature:${node.under}/` : ''}run:${node.folder.uri.toString()}:${r.start}:${node.index}`;
        item.iconPath = new vscode.ThemeIcon(codicon, color ? new vscode.ThemeColor(color) : undefined);
        const left = r.uncommitted?.length ? (r.uncommitted.length + (r.uncommittedMore ?? 0)) : 0;
        const merge = mergeText(r.parallel);
        item.description = `${merge ? `${merge} · ` : ''}${words}${left ? ` · ${left} uncommitted` : ''} · ${formatDuration(r.durationMs)} · ${new Date(r.start).toLocaleString()}`;
        const terminal = this.runner.terminalOf(node.folder.uri, r.promptFile);
        item.contextValue = `run ${r.outcome}${terminal ? ' terminal' : ''}`;
        const md = new vscode.MarkdownString(undefined, true);
        md.appendMarkdown(`**${escape(r.storyId)}** — iteration ${r.iteration}, agent \`${escape(r.agent)}\`\n\n`);
        md.appendMarkdown(`Outcome: ${words} · exit code ${r.exitCode ?? 'unknown'} · ${formatDuration(r.durationMs)}\n\n`);
        md.appendMarkdown(`Passing stories: ${r.passingBefore} → ${r.passingAfter}${r.complete ? ' · agent signalled COMPLETE' : ''}\n\n`);
        md.appendMarkdown(r.commit ? `Commit: \`${r.commit.sha.slice(0, 8)}\` ${escape(r.commit.subject)}\n\n` : 'No `feat:` commit\n\n');
        if (r.uncommitted?.length) {
          md.appendMarkdown(`The agent left uncommitted changes: ${r.uncommitted.map((f) => `\`${f.replace(/`/g, "'")}\``).join(', ')}${r.uncommittedMore ? `, and ${r.uncommittedMore} more` : ''}\n\n`);
        }
        if (r.parallel) {
          md.appendMarkdown(`Wave ${r.parallel.wave + 1} · worktree ${escape(r.parallel.worktree)} · branch \`${r.parallel.branch.replace(/`/g, "'")}\`${merge ? ` · ${escape(merge)}` : ''}\n\n`);
        }
        if (r.signature) {
          md.appendMarkdown(`Failure signature: ${escape(r.signature)}\n\n`);
        }
        if (r.resetAt) {
          md.appendMarkdown(`The agent's limit reset at ${escape(new Date(r.resetAt).toLocaleString())}\n\n`);
        }
        md.appendMarkdown(`Prompt: ${escape(r.promptFile)}${terminal ? ' · its terminal is still open' : ''}`);
        item.tooltip = md;
        item.command = { command: Commands.openRunPrompt, title: 'Open Prompt', arguments: [node.folder.uri, r.promptFile] };
        return item;
      }
      case 'loop': {
        // The newest loop opens; older ones stay folded so the view stays short.
        const item = new vscode.TreeItem(node.group.label, node.newest ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `loop:${node.folder.uri.toString()}:${node.group.loopId}`;
        item.iconPath = new vscode.ThemeIcon('run-all');
        item.description = new Date(node.group.start).toLocaleString();
        item.contextValue = 'runsLoop';
        return item;
      }
      case 'wave': {
        const item = new vscode.TreeItem(node.wave.label, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `wave:${node.folder.uri.toString()}:${node.loopId}:${node.wave.wave}`;
        item.iconPath = new vscode.ThemeIcon('layers');
        item.contextValue = 'runsWave';
        return item;
      }
      case 'failures': {
        const n = node.groups.reduce((sum, g) => sum + g.runs.length, 0);
        const item = new vscode.TreeItem('Failures by signature', vscode.TreeItemCollapsibleState.Collapsed);
        item.iconPath = new vscode.ThemeIcon('bug');
        item.description = `${n} failed iteration${n === 1 ? '' : 's'}, ${node.groups.length} signature${node.groups.length === 1 ? '' : 's'}`;
        item.contextValue = 'runsFailures';
        return item;
      }
      case 'signature': {
        const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `signature:${node.folder.uri.toString()}:${node.group.signature}`;
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
        item.description = node.group.storyIds.join(', ');
        item.tooltip = `${node.group.label}\nStories: ${node.group.storyIds.join(', ')}`;
        item.contextValue = 'runsSignature';
        return item;
      }
      case 'archives': {
        const item = new vscode.TreeItem('Archives', vscode.TreeItemCollapsibleState.Collapsed);
        item.iconPath = new vscode.ThemeIcon('archive');
        item.description = `${node.names.length} previous feature${node.names.length === 1 ? '' : 's'}`;
        item.contextValue = 'archives';
        return item;
      }
      case 'archive': {
        const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Collapsed);
        item.iconPath = new vscode.ThemeIcon('folder-library');
        item.contextValue = 'archive';
        return item;
      }
      case 'archiveFile': {
        const item = new vscode.TreeItem(node.file, vscode.TreeItemCollapsibleState.None);
        const uri = archiveUri(node.folder, node.archive, node.file);
        item.resourceUri = uri;
        item.iconPath = vscode.ThemeIcon.File;
        item.command = { command: 'vscode.open', title: 'Open (read-only)', arguments: [uri] };
        item.tooltip = `${node.archive}/${node.file} (read-only)`;
        item.contextValue = 'archiveFile';
        return item;
      }
    }
  }

  async getChildren(node?: RunsNode): Promise<RunsNode[]> {
    if (!node) {
      const out: RunsNode[] = [];
      for (const { folder, runs, errors, archives } of this.runs.list()) {
        // With no runs the view shows its welcome content instead (how to start, or why agents cannot run here).
        if (runs.length > 0) {
          out.push({ kind: 'summary', folder, text: summaryLine(summarizeRuns(runs)), bad: errors.length });
        }
        out.push(
          ...groupRuns(runs).map((g, k): RunsNode => (g.kind === 'run' ? { kind: 'run', folder, run: runs[g.index], index: g.index } : { kind: 'loop', folder, runs, group: g, newest: k === 0 })),
        );
        const failures = groupBySignature(runs);
        if (failures.length > 0) {
          out.push({ kind: 'failures', folder, runs, groups: failures });
        }
        if (archives.length > 0) {
          out.push({ kind: 'archives', folder, names: [...archives] });
        }
      }
      return out;
    }
    if (node.kind === 'loop') {
      return node.group.waves.map((wave) => ({ kind: 'wave' as const, folder: node.folder, runs: node.runs, loopId: node.group.loopId, wave }));
    }
    if (node.kind === 'wave') {
      return node.wave.runs.map((index) => ({ kind: 'run' as const, folder: node.folder, run: node.runs[index], index }));
    }
    if (node.kind === 'failures') {
      return node.groups.map((group) => ({ kind: 'signature' as const, folder: node.folder, runs: node.runs, group }));
    }
    if (node.kind === 'signature') {
      return node.group.runs.map((index) => ({ kind: 'run' as const, folder: node.folder, run: node.runs[index], index, under: node.group.signature }));
    }
    if (node.kind === 'archives') {
      return node.names.map((name) => ({ kind: 'archive' as const, folder: node.folder, name }));
    }
    if (node.kind === 'archive') {
      const entries = await vscode.workspace.fs.readDirectory(joinRelative(node.folder.uri, `archive/${node.name}`)).then((e) => e, () => []);
      return entries
        .filter(([, type]) => type === vscode.FileType.File)
        .map(([file]) => ({ kind: 'archiveFile' as const, folder: node.folder, archive: `archive/${node.name}`, file }));
    }
    return [];
  }
}

/** A read-only view of an archived file: served by ArchiveContentProvider. */
export function archiveUri(folder: vscode.WorkspaceFolder, archive: string, file: string): vscode.Uri {
  const real = joinRelative(folder.uri, `${archive}/${file}`);
  return vscode.Uri.from({ scheme: ARCHIVE_SCHEME, path: real.path, query: real.toString() });
}

export class ArchiveContentProvider implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const real = vscode.Uri.parse(uri.query);
    return (await readText(real)) ?? `The archived file ${real.fsPath} no longer exists.`;
  }
}

function escape(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>$]/g, (c) => `\\${c}`);
}
