/**
 * Follow a published backlog from VS Code (issue 20): each published story's remote state — its
 * issue open or closed, its latest `ralph.yml` run (queued, in progress, failed: a link to its
 * logs), its pull request (open, merged, its checks) — for the Stories view, the Task Graph and the
 * Issues view. Read with conditional requests (a 304 costs nothing) once in the window's life,
 * after Publish and Dispatch, again every `ralph.github.followSeconds` only while something on
 * GitHub still moves, and on Sync.
 *
 * Sync also fetches the feature branch and compares prd.json there with the local one: a story
 * that passes on GitHub and not here is offered to take (never taken silently); one that passes
 * here and not there is shown as such.
 */
import * as vscode from 'vscode';
import { comparePasses, publishedIssues, type StoryRemote } from '../core/github/remoteState';
import { WORKFLOW_PATH } from '../core/github/workflow';
import { errorMessage } from '../core/errorMessage';
import type { ArtifactBadgeDto } from '../core/webview/graphProtocol';
import { readRemoteStates, remoteFeaturePasses } from '../node/github/remoteFeature';
import { Disposable } from '../util/disposable';
import type { GitHubWorkspace } from './githubWorkspace';
import type { PrdWorkspace } from './prdWorkspace';
import { readSetting } from './settings';

export interface FolderRemote {
  readonly states: ReadonlyMap<string, StoryRemote>;
  /** After a Sync: stories that pass on GitHub's feature branch and not here, and the reverse. */
  readonly sync?: { readonly passedRemotely: readonly string[]; readonly conflicts: readonly string[]; readonly at: number };
  /** Why the remote state could not be read (shown, never thrown). */
  readonly problem?: string;
}

export class GitHubFollow extends Disposable {
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly folders = new Map<string, FolderRemote>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Folders read once already in this window. */
  private readonly started = new Set<string>();
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly github: GitHubWorkspace,
    private readonly prds: PrdWorkspace,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.register({ dispose: () => this.timers.forEach((t) => clearTimeout(t)) });
    // A folder with published stories and the workflow (.github/workflows/ralph.yml) is read once
    // in the window's life when its GitHub client exists (at start, after sign-in); any folder
    // after Publish, Dispatch and Sync, and while something is in flight. Editing prd.json costs no request (linking a story to an issue
    // already read must not: the Issues view's rule).
    this.register(
      github.onDidChange(() => {
        for (const e of prds.list()) {
          const key = e.folder.uri.toString();
          if (!this.started.has(key) && publishedIssues(e.analysis.doc.stories).size > 0 && github.readerFor(e.folder)) {
            this.started.add(key);
            void this.runsOnGitHub(e.folder).then((yes) => (yes ? this.refresh(e.folder) : undefined));
          }
        }
      }),
    );
  }

  /** The folder has the workflow that runs its stories on GitHub Actions. */
  private async runsOnGitHub(folder: vscode.WorkspaceFolder): Promise<boolean> {
    return vscode.workspace.fs.stat(vscode.Uri.joinPath(folder.uri, WORKFLOW_PATH)).then(
      () => true,
      () => false,
    );
  }

  forFolder(folder: vscode.Uri): FolderRemote | undefined {
    return this.folders.get(folder.toString());
  }

  /**
   * What a view shows of a story on GitHub: its run or pull request; undefined when it has neither
   * (its issue's own state is the Issues view's and the badge's already), is not published, or
   * was not read yet.
   */
  stateOf(folder: vscode.Uri, storyId: string): StoryRemote | undefined {
    const s = this.folders.get(folder.toString())?.states.get(storyId);
    return s && shown(s) ? s : undefined;
  }

  /** Reads the remote state of a folder's published stories (queued behind a read under way). */
  refresh(folder: vscode.WorkspaceFolder): Promise<void> {
    const go = (): Promise<void> => this.read(folder);
    this.pending = this.pending.then(go, go);
    return this.pending;
  }

  /**
   * Sync: reads the remote state, fetches the feature branch and compares its prd.json with the
   * local one. Returns what differs; the command asks before taking anything.
   */
  async sync(folder: vscode.WorkspaceFolder): Promise<FolderRemote> {
    await this.refresh(folder);
    const entry = await this.prds.readNow(folder);
    const feature = entry?.analysis.doc.branchName?.trim();
    if (!entry || !feature) {
      throw new Error('prd.json has no "branchName": there is no feature branch to sync with.');
    }
    const rel = vscode.workspace.asRelativePath(entry.uri, false).replace(/\\/g, '/');
    const remote = await remoteFeaturePasses(folder.uri.fsPath, feature, rel);
    const local = new Map(entry.analysis.doc.stories.map((s) => [s.id, s.passes] as const));
    const diff = comparePasses(local, remote);
    const key = folder.uri.toString();
    const now: FolderRemote = { ...(this.folders.get(key) ?? { states: new Map() }), sync: { ...diff, at: Date.now() } };
    this.folders.set(key, now);
    this.onDidChangeEmitter.fire();
    return now;
  }

  private async read(folder: vscode.WorkspaceFolder): Promise<void> {
    const key = folder.uri.toString();
    clearTimeout(this.timers.get(key));
    // Read now: a publish has just written the issue numbers, and the model may not have read them yet.
    const entry = await this.prds.readNow(folder);
    const feature = entry?.analysis.doc.branchName?.trim() ?? '';
    const issueOf = publishedIssues(entry?.analysis.doc.stories ?? []);
    if (issueOf.size === 0 || feature === '') {
      if (this.folders.delete(key)) {
        this.onDidChangeEmitter.fire();
      }
      return;
    }
    const client = this.github.readerFor(folder);
    if (!client) {
      return; // signed out, or no repository: the Issues view says so
    }
    let next: FolderRemote;
    try {
      const states = await readRemoteStates(client, feature, issueOf);
      const moving = [...states].filter(([, st]) => shown(st)).map(([id, st]) => `${id}: ${st.label}`);
      this.log.info(`[github] ${folder.name}: on GitHub ${moving.length > 0 ? moving.join('; ') : 'no run or pull request of a published story'}`);
      next = { states, sync: this.folders.get(key)?.sync };
    } catch (e) {
      this.log.warn(`[github] ${folder.name}: the remote state could not be read: ${errorMessage(e)}`);
      next = { states: this.folders.get(key)?.states ?? new Map(), sync: this.folders.get(key)?.sync, problem: errorMessage(e) };
    }
    this.folders.set(key, next);
    this.onDidChangeEmitter.fire();
    if ([...next.states.values()].some((s) => s.inFlight)) {
      const seconds = Math.max(10, readSetting('githubFollowSeconds', folder.uri));
      this.timers.set(key, setTimeout(() => void this.refresh(folder), seconds * 1000));
    }
  }
}


/** The Task Graph's issue badges with each published story's remote state (a badge of its own where the Issues view has none). */
export function withRemoteStates(badges: ReadonlyMap<string, ArtifactBadgeDto>, remote: FolderRemote | undefined): Map<string, ArtifactBadgeDto> {
  const out = new Map(badges);
  for (const [storyId, state] of remote?.states ?? []) {
    if (!shown(state)) {
      continue;
    }
    const badge = out.get(storyId);
    const number = badge?.issue ?? state.issue?.number;
    if (number === undefined) {
      continue;
    }
    out.set(storyId, { ...(badge ?? { issue: number, research: 'missing', plan: 'missing', review: 'missing', implementation: 'missing', warnings: [] }), remote: { kind: state.kind, label: state.label } });
  }
  return out;
}

/** A run or a pull request is shown; an issue's own open or closed is not said twice. */
function shown(s: StoryRemote): boolean {
  return s.kind !== 'issue-open' && s.kind !== 'issue-closed';
}
