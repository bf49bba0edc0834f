/**
 * The GitHub memory layer of each workspace folder: which issues to show (stories' `issue`
 * field and GH-<n> / #<n> mentions, the optional issue filter setting, issues added with
 * "Show Issue #…"), their artifacts from GitHub and from thoughts/shared, self-heal and
 * "Link to Issue". Results and ETags are cached for the window's life; a refresh of unchanged
 * issues costs only 304s. Signed out, offline or rate-limited, it shows the documents on disk
 * and says so; offline, the links of the artifact comments read last time (kept in the
 * workspace state, commentCache.ts) still show, marked as cached.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ArtifactEntry, IssueArtifacts } from '../core/artifacts/issueArtifacts';
import { artifactBadgeOf } from '../core/artifacts/badge';
import { cacheKey, cachedIssueOf, type CachedIssue, parseCommentCache } from '../core/artifacts/commentCache';
import { trustRulesFrom, type TrustRules } from '../core/artifacts/trust';
import { artifactOfPath } from '../core/artifacts/discovery';
import { type PlannedComment, planSelfHeal } from '../core/artifacts/selfHeal';
import { issuesOfStory } from '../core/artifacts/storyIssues';
import { parseRepoSlug, type RepoRef } from '../core/artifacts/url';
import type { ArtifactBadgeDto } from '../core/webview/graphProtocol';
import type { IssuePlanInput } from '../core/artifacts/promptSection';
import { linkDocument, type ReadIssue, readIssuePlan, readIssues, repoFromGitRemote, selfHeal } from '../node/github/artifacts';
import { GitHubClient, type GitHubErrorKind } from '../node/github/client';
import { KeyedDebouncer } from '../util/debounce';
import { Disposable } from '../util/disposable';
import { currentProvider, type GitHubAccess, type GitHubAuth } from './githubAuth';
import type { PrdWorkspace } from './prdWorkspace';
import { readSetting } from './settings';
import { watchFiles } from './workspaceWatch';

export type NoticeKind = 'signed-out' | 'offline' | 'rate-limited' | 'no-repo' | 'auth' | 'error';

/** The artifact status of a story's issue: what the task graph's badge shows. */
export type StoryArtifactStatus = ArtifactBadgeDto;

export interface Notice {
  readonly kind: NoticeKind;
  readonly message: string;
}

export interface FolderIssues {
  readonly folder: vscode.WorkspaceFolder;
  readonly repo?: RepoRef;
  readonly issues: readonly IssueArtifacts[];
  /** Why GitHub was not (fully) read: the view shows documents on disk only and says so. */
  readonly notice?: Notice;
  /** Story ids by issue number. */
  readonly storiesByIssue: ReadonlyMap<number, readonly string[]>;
  readonly requests: number;
}

interface FolderState {
  repo?: RepoRef;
  /** Who may link documents and which may be read (the trust settings at the last refresh). */
  trust?: TrustRules;
  client?: GitHubClient;
  clientKey?: string;
  result?: FolderIssues;
}

const ADDED_KEY = 'ralph.github.addedIssues';
/** The artifact comments last read, by folder (workspace state: the extension's own storage, not the repository). */
export const COMMENT_CACHE_KEY = 'ralph.github.commentCache';
const MAX_ISSUES = 200;

function noticeFor(kind: GitHubErrorKind | undefined, message: string): Notice | undefined {
  switch (kind) {
    case undefined:
      return undefined;
    case 'rate-limit':
      return { kind: 'rate-limited', message };
    case 'network':
    case 'timeout':
      return { kind: 'offline', message };
    case 'auth':
      return { kind: 'auth', message };
    default:
      return { kind: 'error', message };
  }
}

export class GitHubWorkspace extends Disposable {
  private readonly folders = new Map<string, FolderState>();
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly debouncer: KeyedDebouncer<string>;
  private pending: Promise<void> = Promise.resolve();
  private lastIssueSets = new Map<string, string>();
  /** A check of the stories' issues, due after a PRD change (see the constructor). */
  private relink?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly prds: PrdWorkspace,
    private readonly auth: GitHubAuth,
    private readonly memento: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.debouncer = new KeyedDebouncer(400, () => this.refresh());
    this.register({ dispose: () => this.debouncer.dispose() });
    this.register(auth.onDidChange(() => this.refresh({ resetClients: true })));
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('ralph.github')) {
          this.refresh({ resetClients: true });
        }
      }),
    );
    // Stories changed: read GitHub again only when the set of issues changed; otherwise only
    // which story belongs to which issue may have changed, and that needs no request.
    // Deferred to its own task: the pictures that listen to the same event (the graph, the Stories
    // view) should not wait for it.
    this.register({ dispose: () => clearTimeout(this.relink) });
    this.register(
      prds.onDidChange(() => {
        clearTimeout(this.relink);
        this.relink = setTimeout(() => this.onStoriesChanged(), 0);
      }),
    );
    // An agent's write tool makes thoughts/shared/plans/ and the plan in one go.
    this.register(watchFiles('**/thoughts/shared/**', '**/{thoughts,thoughts/shared}', () => this.debouncer.trigger('all')));
  }

  /** The stories changed: read GitHub again only when the set of issues changed, else only re-link stories to issues (no request). */
  private onStoriesChanged(): void {
    clearTimeout(this.relink);
    this.relink = undefined;
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.some((f) => this.lastIssueSets.get(f.uri.toString()) !== this.issueNumbers(f).join(','))) {
      this.debouncer.trigger('all');
    } else if (folders.map((f) => this.relinkStories(f)).some(Boolean)) {
      this.onDidChangeEmitter.fire();
    }
  }

  /** The local stand-in used instead of GitHub (`ralph.github.standInUrl`), or why the setting was refused. */
  standIn(): { url?: string; problem?: string } {
    return this.auth.standIn();
  }

  list(): FolderIssues[] {
    return (vscode.workspace.workspaceFolders ?? []).map((f) => this.folders.get(f.uri.toString())?.result).filter((r): r is FolderIssues => r !== undefined);
  }

  forFolder(folder: vscode.WorkspaceFolder): FolderIssues | undefined {
    return this.folders.get(folder.uri.toString())?.result;
  }

  /** Resolves when the refreshes asked for so far are done. */
  async whenIdle(): Promise<void> {
    if (this.relink !== undefined) {
      this.onStoriesChanged();
    }
    await this.debouncer.idle();
    let p: Promise<void>;
    do {
      p = this.pending;
      await p;
    } while (p !== this.pending);
  }

  /** The issues of a story (its `issue` field and mentions) with their artifacts, as cached. */
  artifactsForStory(folderUri: vscode.Uri, storyId: string): IssueArtifacts[] {
    const r = this.folders.get(folderUri.toString())?.result;
    if (!r) {
      return [];
    }
    return r.issues.filter((i) => r.storiesByIssue.get(i.number)?.includes(storyId));
  }

  /**
   * Artifact status per story id (for the task graph's badge): for each story with an issue,
   * the status of research, plan, group plan, review and implementation of its first issue, and
   * its warnings (missing prerequisites).
   */
  artifactStatusByStory(folderUri: vscode.Uri): Map<string, StoryArtifactStatus> {
    const out = new Map<string, StoryArtifactStatus>();
    const r = this.folders.get(folderUri.toString())?.result;
    for (const i of r?.issues ?? []) {
      for (const id of r?.storiesByIssue.get(i.number) ?? []) {
        if (!out.has(id)) {
          out.set(id, artifactBadgeOf(i));
        }
      }
    }
    return out;
  }

  /** The prompt's plan input for a story: its issue's plan (first 100 lines) and research path. */
  async issuePlanFor(folder: vscode.WorkspaceFolder, storyId: string): Promise<IssuePlanInput | undefined> {
    await this.whenIdle();
    return readIssuePlan(folder.uri.fsPath, this.artifactsForStory(folder.uri, storyId), this.folders.get(folder.uri.toString())?.trust);
  }

  /** Issue numbers of a folder: stories, then issues the user added. */
  issueNumbers(folder: vscode.WorkspaceFolder): number[] {
    return [...new Set([...this.storyIssues(folder).keys(), ...this.addedIssues(folder)])].slice(0, MAX_ISSUES);
  }

  /** Story ids by issue number, from the model's snapshot (each story's `issue` field and mentions). */
  private storyIssues(folder: vscode.WorkspaceFolder): Map<number, string[]> {
    const out = new Map<number, string[]>();
    for (const s of this.prds.forFolder(folder.uri)?.analysis.doc.stories ?? []) {
      for (const n of issuesOfStory(s)) {
        out.set(n, [...(out.get(n) ?? []), s.id]);
      }
    }
    return out;
  }

  /** Updates the cached story ↔ issue links of a folder from its stories; true when they changed. */
  private relinkStories(folder: vscode.WorkspaceFolder): boolean {
    const state = this.folders.get(folder.uri.toString());
    if (!state?.result) {
      return false;
    }
    const storiesByIssue = this.storyIssues(folder);
    const key = (m: ReadonlyMap<number, readonly string[]>): string => JSON.stringify([...m].sort(([a], [b]) => a - b));
    if (key(storiesByIssue) === key(state.result.storiesByIssue)) {
      return false;
    }
    state.result = { ...state.result, storiesByIssue };
    return true;
  }

  private addedIssues(folder: vscode.WorkspaceFolder): number[] {
    const all = this.memento.get<Record<string, number[]>>(ADDED_KEY, {});
    return all[folder.uri.toString()] ?? [];
  }

  /** "Show Issue #…": remembers the issue for this workspace and reads it. */
  async addIssue(folder: vscode.WorkspaceFolder, issue: number): Promise<void> {
    const all = { ...this.memento.get<Record<string, number[]>>(ADDED_KEY, {}) };
    const key = folder.uri.toString();
    all[key] = [...new Set([...(all[key] ?? []), issue])];
    await this.memento.update(ADDED_KEY, all);
    await this.refresh();
  }

  /** Re-reads every folder's issues (conditional requests: unchanged ones cost 304s). */
  refresh(options: { resetClients?: boolean } = {}): Promise<void> {
    const run = async (): Promise<void> => {
      if (options.resetClients) {
        for (const s of this.folders.values()) {
          s.client = undefined;
          s.clientKey = undefined;
        }
      }
      const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
      let access: Promise<GitHubAccess | undefined> | undefined;
      const lazyAccess = (): Promise<GitHubAccess | undefined> => (access ??= this.auth.access(false));
      for (const folder of folders) {
        try {
          await this.refreshFolder(folder, lazyAccess);
        } catch (e) {
          this.log.error(`[github] ${folder.name}: ${(e as Error).message}`);
        }
      }
      this.onDidChangeEmitter.fire();
    };
    this.pending = this.pending.then(run, run);
    return this.pending;
  }

  private async refreshFolder(folder: vscode.WorkspaceFolder, getAccess: () => Promise<GitHubAccess | undefined>): Promise<void> {
    const key = folder.uri.toString();
    const state = this.folders.get(key) ?? {};
    this.folders.set(key, state);
    const provider = currentProvider();
    const setting0 = readSetting('githubRepository', folder.uri).trim();
    const remote = setting0 ? undefined : await repoFromGitRemote(folder.uri.fsPath);
    // Only a folder with a GitHub repository asks for a session.
    const access = setting0 || remote ? await getAccess() : undefined;
    const webHost = access?.webHost ?? provider.webHost;
    const repo = setting0 ? parseRepoSlug(setting0, webHost) : remote;
    state.repo = repo;
    const storyIssues = this.storyIssues(folder);
    const filter = readSetting('githubIssueFilter', folder.uri);
    let numbers = this.issueNumbers(folder);
    this.lastIssueSets.set(key, numbers.join(','));
    let notice: Notice | undefined;
    let client: GitHubClient | undefined;
    const setting = readSetting('githubRepository', folder.uri).trim();
    if (!repo) {
      notice = {
        kind: 'no-repo',
        message: setting
          ? `ralph.github.repository must be OWNER/REPO (it is "${setting}"): showing documents on disk only.`
          : 'No GitHub repository for this folder: set ralph.github.repository to OWNER/REPO or add a GitHub "origin" remote. Showing documents on disk only.',
      };
    } else if (!access) {
      notice = { kind: 'signed-out', message: `Signed out of ${provider.label}: showing documents on disk only.` };
    } else if (repo.host !== access.webHost) {
      notice = { kind: 'no-repo', message: `The repository is on ${repo.host} but you are signed in to ${access.webHost}: set github-enterprise.uri, or ralph.github.repository. Showing documents on disk only.` };
    } else {
      const writeIntervalMs = readSetting('githubWriteIntervalMs', folder.uri);
      const clientKey = `${access.apiUrl} ${repo.owner}/${repo.repo} ${access.account ?? ''} ${access.token?.length ?? 0} ${writeIntervalMs}`;
      if (!state.client || state.clientKey !== clientKey) {
        state.client = new GitHubClient({ token: access.token, apiUrl: access.apiUrl, owner: repo.owner, repo: repo.repo, timeoutMs: 20_000, writeIntervalMs, log: (m) => this.log.warn(`[github] ${m}`) });
        state.clientKey = clientKey;
      }
      client = state.client;
      if (filter && (filter.labels || filter.assignee || filter.milestone)) {
        try {
          const found = await client.listIssues(filter, 50);
          numbers = [...new Set([...numbers, ...found.map((i) => i.number)])].slice(0, MAX_ISSUES);
        } catch (e) {
          this.log.warn(`[github] issue filter: ${(e as Error).message}`);
        }
      }
    }
    const trust = this.trustRules(folder);
    state.trust = trust;
    const before = client?.requestCount ?? 0;
    const cache = this.commentCache(folder);
    const read = await readIssues({ root: folder.uri.fsPath, repo, client, issues: numbers, trust, cached: repo ? (n) => cache[cacheKey(repo, n)] : undefined });
    if (repo && client) {
      await this.keepComments(folder, repo, numbers, cache, read);
    }
    const failures = read.filter((r) => r.errorKind !== undefined);
    if (!notice && failures.length > 0) {
      const worst = failures.find((f) => f.errorKind === 'rate-limit') ?? failures.find((f) => f.errorKind === 'auth') ?? failures.find((f) => f.errorKind === 'network' || f.errorKind === 'timeout');
      if (worst) {
        notice = noticeFor(worst.errorKind, worst.result.error ?? '');
      } else if (failures.length === read.length) {
        notice = noticeFor(failures[0].errorKind, failures[0].result.error ?? '');
      }
    }
    const requests = (client?.requestCount ?? 0) - before;
    this.log.info(`[github] ${folder.name}: ${numbers.length} issue(s), ${requests} request(s)${notice ? `; ${notice.kind}` : ''}`);
    const storiesByIssue = new Map<number, string[]>(storyIssues);
    state.result = { folder, repo, issues: read.map((r) => r.result).sort((a, b) => a.number - b.number), notice, storiesByIssue, requests };
  }

  /** The cached artifact comments of a folder (entries that do not parse are dropped). */
  commentCache(folder: vscode.WorkspaceFolder): Record<string, CachedIssue> {
    return parseCommentCache(this.memento.get<Record<string, unknown>>(COMMENT_CACHE_KEY, {})[folder.uri.toString()]);
  }

  /**
   * Keeps the artifact comments of the issues just read, for when GitHub cannot be reached; only
   * the issues shown now, of this repository, stay in the cache.
   */
  private async keepComments(folder: vscode.WorkspaceFolder, repo: RepoRef, numbers: readonly number[], cache: Record<string, CachedIssue>, read: readonly ReadIssue[]): Promise<void> {
    const now = new Date();
    const next: Record<string, CachedIssue> = {};
    for (const n of numbers) {
      const key = cacheKey(repo, n);
      const r = read.find((x) => x.result.number === n);
      const entry = r?.comments ? cachedIssueOf(r.result, r.comments, now) : cache[key];
      if (entry) {
        next[key] = entry;
      }
    }
    if (JSON.stringify(next) === JSON.stringify(cache)) {
      return;
    }
    const all = { ...this.memento.get<Record<string, unknown>>(COMMENT_CACHE_KEY, {}), [folder.uri.toString()]: next };
    await this.memento.update(COMMENT_CACHE_KEY, all);
  }

  private clientFor(folder: vscode.WorkspaceFolder): { client: GitHubClient; repo: RepoRef } {
    const s = this.folders.get(folder.uri.toString());
    if (!s?.client || !s.repo || s.result?.notice?.kind === 'signed-out' || s.result?.notice?.kind === 'no-repo') {
      throw new Error(s?.result?.notice?.message ?? 'Not signed in to GitHub: sign in first.');
    }
    return { client: s.client, repo: s.repo };
  }

  /** The folder's client for reading, without asking anyone to sign in; undefined when there is none. */
  readerFor(folder: vscode.WorkspaceFolder): GitHubClient | undefined {
    try {
      return this.clientFor(folder).client;
    } catch {
      return undefined;
    }
  }

  /**
   * A client that may write for this folder (Publish Stories to GitHub…): asks to sign in when
   * there is no session. Throws the folder's notice when there is nowhere to write.
   */
  /** Whose links and markers count in `folder` (ralph.github.trustedAuthors, ralph.github.artifactFolders); a bad entry is logged. */
  trustRules(folder: vscode.WorkspaceFolder): TrustRules {
    const { rules, notes } = trustRulesFrom(readSetting('githubTrustedAuthors', folder.uri), readSetting('githubArtifactFolders', folder.uri));
    for (const n of notes) {
      this.log.warn(`[github] ${folder.name}: ${n}`);
    }
    return rules;
  }

  async writerFor(folder: vscode.WorkspaceFolder): Promise<{ client: GitHubClient; repo: RepoRef }> {
    if (!this.folders.get(folder.uri.toString())?.client) {
      if (!(await this.auth.access(true))) {
        throw new Error('Writing to GitHub needs a GitHub session: sign in to GitHub (the Accounts menu), then try again.');
      }
      await this.refresh();
    }
    const { client, repo } = this.clientFor(folder);
    return { client, repo };
  }

  /**
   * The comments self-heal would post for these issues, word for word (the blob links name the
   * repository's default branch): what the confirmation shows. Throws the folder's notice when
   * there is nowhere to post (no GitHub repository, signed out).
   */
  async selfHealPreview(folder: vscode.WorkspaceFolder, issues: readonly { readonly issue: number; readonly candidates: readonly ArtifactEntry[] }[]): Promise<{ issue: number; comment: PlannedComment }[]> {
    const { client, repo } = this.clientFor(folder);
    const ref = await client.getDefaultBranch();
    return issues.flatMap(({ issue, candidates }) => planSelfHeal(candidates, [], repo, ref).map((comment) => ({ issue, comment })));
  }

  /**
   * Posts the missing comments of an issue's on-disk artifacts (only those given, or all). The
   * comments are re-read right before each post, so a link already posted is never posted twice.
   */
  async selfHeal(folder: vscode.WorkspaceFolder, issue: number, only?: readonly ArtifactEntry[]): Promise<PlannedComment[]> {
    const { client, repo } = this.clientFor(folder);
    const current = this.forFolder(folder)?.issues.find((i) => i.number === issue);
    const candidates = (only ?? current?.artifacts ?? []).filter((a) => a.status === 'on-disk');
    const posted = await selfHeal(client, repo, issue, candidates, { root: folder.uri.fsPath });
    for (const p of posted) {
      this.log.info(`[github] #${issue}: posted the ${p.kind} link ${p.url}`);
    }
    await this.refresh();
    return posted;
  }

  /** "Link to Issue": the issue and kind come from the document's folder and file name. */
  async linkDocument(folder: vscode.WorkspaceFolder, uri: vscode.Uri): Promise<{ posted: boolean; url: string; issue: number }> {
    const rel = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
    const target = artifactOfPath(rel);
    if (!target) {
      throw new Error(`${rel} is not an artifact: it must be thoughts/shared/{research,plans,reviews}/…GH-<n>….`);
    }
    const { client, repo } = this.clientFor(folder);
    const r = await linkDocument(client, repo, target.issue, target.kind, rel, { root: folder.uri.fsPath });
    if (!this.issueNumbers(folder).includes(target.issue)) {
      await this.addIssue(folder, target.issue);
    } else {
      await this.refresh();
    }
    return { ...r, issue: target.issue };
  }
}
