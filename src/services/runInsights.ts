/**
 * The run insights of a workspace folder for the Run Dashboard (issue 21): the runs as RunsWorkspace
 * read them (the one reader of runs.jsonl in the extension), the current feature from prd.json's
 * snapshot (PrdWorkspace), the archived features from `archive/<date>-<feature>/prd.json`, folded by
 * core/insights/stats.ts. Fires when any of them changes.
 */
import * as vscode from 'vscode';
import { type FeatureStories, featureResolver } from '../core/insights/features';
import { computeStats, type RunStats, type StatsFilter } from '../core/insights/stats';
import { readArchivedFeatures } from '../node/insights/features';
import { anyOf } from '../util/events';
import type { PrdWorkspace } from './prdWorkspace';
import type { RunsWorkspace } from './runsWorkspace';

export interface FolderInsights {
  readonly folder: vscode.WorkspaceFolder;
  readonly stats: RunStats;
  /** runs.jsonl lines that are not runs. */
  readonly skipped: number;
}

export class RunInsights {
  readonly onDidChange: vscode.Event<void>;

  constructor(
    private readonly prds: PrdWorkspace,
    private readonly runs: RunsWorkspace,
  ) {
    this.onDidChange = anyOf(runs.onDidChange, prds.onDidChange);
  }

  /** The folder the dashboard shows: the first with runs, else the first workspace folder. */
  defaultFolder(): vscode.WorkspaceFolder | undefined {
    return this.runs.list().find((f) => f.runs.length > 0)?.folder ?? vscode.workspace.workspaceFolders?.[0];
  }

  async statsFor(folder: vscode.WorkspaceFolder, filter: StatsFilter): Promise<FolderInsights> {
    await this.runs.whenIdle();
    const read = this.runs.forFolder(folder.uri);
    const doc = this.prds.forFolder(folder.uri)?.analysis.doc;
    const current: FeatureStories[] = doc?.branchName ? [{ branchName: doc.branchName, storyIds: doc.stories.map((s) => s.id) }] : [];
    const archived = folder.uri.scheme === 'file' ? await readArchivedFeatures(folder.uri.fsPath) : [];
    return { folder, stats: computeStats(read?.runs ?? [], featureResolver([...current, ...archived]), filter), skipped: read?.errors.length ?? 0 };
  }
}
