/**
 * Publish Stories to GitHub… in VS Code (issue 20): a dry run first (what it would create, change
 * and close, in a dialog; every write in a document on request), then the publish behind a
 * cancellable progress notification that says n/N, then the stories' `issue` fields written into
 * prd.json as one undoable edit — also after a cancel or a failure, for the issues made so far (the
 * next publish finds them again by their marker in any case). The work is
 * src/node/github/publish.ts, shared with `ralph-workbench github publish`.
 */
import * as vscode from 'vscode';
import { setIssueFieldsEdits } from '../core/prd/graphEdits';
import { publishRefusal, type PublishReport, PublishStopped, publishStories } from '../node/github/publish';
import { ask } from './confirm';
import { editTextFile } from './fileEdits';
import type { GitHubWorkspace } from './githubWorkspace';
import type { PrdWorkspace } from './prdWorkspace';

export interface PublishOutcome {
  readonly report?: PublishReport;
  /** Why nothing was published (refused, cancelled at the dry run), or why it stopped. */
  readonly message: string;
}

export class GitHubPublisher {
  constructor(
    private readonly github: GitHubWorkspace,
    private readonly prds: PrdWorkspace,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async publish(folder: vscode.WorkspaceFolder): Promise<PublishOutcome> {
    const entry = await this.prds.readNow(folder);
    if (!entry) {
      return this.refuse(`${folder.name} has no prd.json to publish.`);
    }
    const refusal = publishRefusal(entry.analysis);
    if (refusal) {
      return this.refuse(refusal);
    }
    const { client, repo } = await this.github.writerFor(folder);
    const where = `${repo.owner}/${repo.repo}`;
    const repository = where;
    const trust = this.github.trustRules(folder);

    let dry: PublishReport;
    try {
      dry = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Reading the issues of ${where}…`, cancellable: true }, (_p, token) =>
        publishStories(client, entry.analysis, { dryRun: true, repository, trust, signal: signalOf(token) }),
      );
    } catch (e) {
      if (e instanceof PublishStopped && e.cancelled) {
        return { message: 'Not published.' };
      }
      throw e;
    }
    for (const n of dry.notes) {
      this.log.info(`[publish] ${n}`);
    }
    if (dry.writes.length === 0) {
      // Nothing to write on GitHub; prd.json may still lack the numbers (a publish cut off after its last write, a checkout).
      await this.writeIssueFields(entry.uri, dry);
      const message = `The issues of ${where} already say what prd.json says: nothing to publish.${dry.notes.length > 0 ? ` ${plural(dry.notes.length, 'note')} in the Ralph log.` : ''}`;
      void vscode.window.showInformationMessage(message);
      return { report: dry, message };
    }
    const creates = dry.writes.filter((w) => w.startsWith('create an issue')).length;
    const detail = [
      `${plural(creates, 'new issue')}, ${plural(dry.writes.length - creates, 'other write')} (issues changed, closed or reopened; sub-issues; "blocked by" dependencies): ${plural(dry.writes.length, 'write')} in all, one every ${client.writeIntervalMs / 1000} s as GitHub asks.`,
      dry.dependencies === 'body-list' ? 'This GitHub has no issue dependencies API: each issue lists "Blocked by #n" in its text instead.' : '',
      ...dry.notes.slice(0, 5),
      dry.notes.length > 5 ? `… and ${dry.notes.length - 5} more notes (Show Details).` : '',
    ].filter((l) => l !== '');
    let answer = await ask(`Publish the stories of ${folder.name} to ${where}?`, ['Publish', 'Show Details'], { detail: detail.join('\n\n'), severity: 'info' });
    if (answer === 'Show Details') {
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: detailsText(where, dry) });
      await vscode.window.showTextDocument(doc, { preview: true });
      answer = await ask(`Publish the stories of ${folder.name} to ${where}?`, ['Publish'], { detail: detail[0], severity: 'info' });
    }
    if (answer !== 'Publish') {
      return { message: 'Not published.' };
    }

    let report: PublishReport;
    let stopped: PublishStopped | undefined;
    try {
      report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Publishing to ${where}`, cancellable: true }, (progress, token) => {
        let last = 0;
        return publishStories(client, entry.analysis, {
          repository,
          trust,
          signal: signalOf(token),
          onProgress: (p) => {
            const pct = p.total > 0 ? (p.done / p.total) * 100 : 0;
            progress.report({ message: `${p.done}/${p.total} · ${p.message}`, increment: Math.max(0, pct - last) });
            last = Math.max(last, pct);
          },
        });
      });
    } catch (e) {
      if (!(e instanceof PublishStopped)) {
        throw e;
      }
      stopped = e;
      report = e.partial;
    }
    for (const w of report.writes) {
      this.log.info(`[publish] ${w}`);
    }
    const written = await this.writeIssueFields(entry.uri, report);
    await this.github.refresh();
    const summary = `${report.created.length > 0 ? `${plural(report.created.length, 'issue')} created, ` : ''}${plural(report.writes.length, 'write')} to ${where}${written ? '; prd.json names each story\'s issue' : ''}.`;
    if (stopped) {
      const message = `${stopped.message} (${summary})`;
      void vscode.window.showWarningMessage(message);
      return { report, message };
    }
    void vscode.window.showInformationMessage(`Published: ${summary}`);
    return { report, message: `Published: ${summary}` };
  }

  /** The stories' `issue` fields, as one undoable edit of prd.json; false when nothing changed. */
  private async writeIssueFields(uri: vscode.Uri, report: PublishReport): Promise<boolean> {
    if (report.issueNumbers.size === 0) {
      return false;
    }
    return (await editTextFile(uri, (text) => setIssueFieldsEdits(text, report.issueNumbers))) !== 'unchanged';
  }

  private refuse(message: string): PublishOutcome {
    void vscode.window.showErrorMessage(message);
    return { message };
  }
}

function signalOf(token: vscode.CancellationToken): AbortSignal {
  const controller = new AbortController();
  token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/** The dry run as a document: every write, then the notes. */
function detailsText(where: string, dry: PublishReport): string {
  return [`# Publish to ${where}: what it would do`, '', ...dry.writes.map((w) => `- ${w}`), '', '## Notes', '', ...(dry.notes.length > 0 ? dry.notes.map((n) => `- ${n}`) : ['- none']), ''].join('\n');
}
