/**
 * Dispatch Ready Stories in VS Code (issue 20): the workflow `ralph.yml` for each ready story not
 * already in flight (max-parallel and the same-file guard: core/github/dispatchPlan.ts), or its
 * issue assigned to the hosted coding agent `ralph.github.agentAssignee` names. A dry run first:
 * the question lists what would start and why the others wait. Unpublished stories are offered
 * to publish first. The work is src/node/github/dispatch.ts, shared with `github dispatch`.
 */
import * as vscode from 'vscode';
import { describeDispatchWait } from '../core/github/dispatchPlan';
import { DispatchError, type DispatchResult, dispatchReady } from '../node/github/dispatch';
import { ask } from './confirm';
import type { GitHubWorkspace } from './githubWorkspace';
import type { PrdWorkspace } from './prdWorkspace';
import { readSetting, readSettings } from './settings';

export interface DispatchOutcome {
  readonly result?: DispatchResult;
  readonly message: string;
  /** The stories are not published: the caller offers Publish Stories to GitHub… */
  readonly publishFirst?: boolean;
}

export class GitHubDispatcher {
  constructor(
    private readonly github: GitHubWorkspace,
    private readonly prds: PrdWorkspace,
  ) {}

  async dispatch(folder: vscode.WorkspaceFolder): Promise<DispatchOutcome> {
    const entry = await this.prds.readNow(folder);
    if (!entry?.analysis.readable) {
      return this.fail(`${folder.name}'s prd.json cannot be read: fix its problems first.`);
    }
    const { client, repo } = await this.github.writerFor(folder);
    const s = readSettings(folder.uri);
    const options = {
      root: folder.uri.fsPath,
      analysis: entry.analysis,
      port: client,
      maxParallel: s.parallelMaxAgents,
      assignee: readSetting('githubAgentAssignee', folder.uri).trim() || undefined,
      files: { prd: s.prdPath, progress: s.progressPath, pin: s.pinPath },
      allowOverlap: s.parallelAllowOverlap,
    };
    const where = `${repo.owner}/${repo.repo}`;
    let dry: DispatchResult;
    try {
      dry = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Reading the runs of ${where}…` }, () => dispatchReady({ ...options, dryRun: true }));
    } catch (e) {
      return this.fail(e instanceof DispatchError ? e.message : (e as Error).message);
    }
    const unpublished = dry.plan.waits.filter((w) => w.reason.kind === 'unpublished');
    let asked = false;
    if (unpublished.length > 0) {
      // Offered, never done unasked: publish first, or dispatch the stories that are published.
      const n = unpublished.length;
      const choices = dry.done.length > 0 ? ['Publish Stories…', `Dispatch ${dry.done.map((d) => d.storyId).join(', ')}`] : ['Publish Stories…'];
      const answer = await ask(`${n === 1 ? '1 ready story is' : `${n} ready stories are`} not published yet (${unpublished.map((w) => w.storyId).join(', ')}): publish first?`, choices, {
        detail: 'A story runs on GitHub Actions once it has its issue: Publish Stories to GitHub… makes them (a dry run first).',
        severity: 'info',
      });
      if (answer === 'Publish Stories…') {
        return { result: dry, message: 'Publish first.', publishFirst: true };
      }
      if (answer === undefined) {
        return { result: dry, message: 'Not dispatched.' };
      }
      asked = true;
    }
    if (dry.done.length === 0) {
      const message = dry.plan.waits.length > 0 ? `Nothing to dispatch: ${dry.plan.waits.map((w) => `${w.storyId} ${describeDispatchWait(w.reason)}`).join('; ')}.` : 'Nothing to dispatch: no story is ready.';
      void vscode.window.showInformationMessage(message);
      return { result: dry, message };
    }
    const ids = dry.done.map((d) => d.storyId);
    const verb = options.assignee ? `Assign ${ids.length === 1 ? 'the issue' : 'the issues'} of ${ids.join(', ')} to ${options.assignee}` : `Run ${ids.join(', ')} on GitHub Actions (${where})`;
    const detail = [
      `${dry.plan.inFlight} in flight now; at most ${options.maxParallel} at once (ralph.parallel.maxAgents).`,
      ...dry.plan.waits.slice(0, 8).map((w) => `${w.storyId} ${describeDispatchWait(w.reason)}`),
    ].join('\n');
    if (!asked && (await ask(`${verb}?`, ['Dispatch'], { detail, severity: 'info' })) !== 'Dispatch') {
      return { result: dry, message: 'Not dispatched.' };
    }
    const result = await dispatchReady({ ...options, dryRun: false });
    const done = result.done.map((d) => d.storyId);
    const message = result.failed
      ? `${done.length > 0 ? `Dispatched ${done.join(', ')}; ` : ''}${result.failed.storyId} was not: ${result.failed.message}`
      : `${options.assignee ? 'Assigned' : 'Dispatched'} ${done.join(', ')}.`;
    void (result.failed ? vscode.window.showWarningMessage(message) : vscode.window.showInformationMessage(message));
    return { result, message };
  }

  private fail(message: string): DispatchOutcome {
    void vscode.window.showErrorMessage(message);
    return { message };
  }
}
