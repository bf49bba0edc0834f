/**
 * Reading an issue's artifacts from GitHub and the workspace, and self-healing missing links:
 * the one implementation behind the CLI's `artifacts` command and the extension's Issues view.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { simpleGit } from 'simple-git';
import type { CachedIssue } from '../../core/artifacts/commentCache';
import { ARTIFACT_DIRS, type ArtifactDir, discoverOnDisk, type DiskArtifact } from '../../core/artifacts/discovery';
import { issueArtifacts, type ArtifactEntry, type IssueArtifacts } from '../../core/artifacts/issueArtifacts';
import { type IssueComment, linkBody, scanComments, type ArtifactKind, type Verdict, verdictFromDocument } from '../../core/artifacts/protocol';
import { planSelfHeal, linkedPaths, type PlannedComment } from '../../core/artifacts/selfHeal';
import { blobUrl, mapArtifactUrl, parseRemoteUrl, type RepoRef } from '../../core/artifacts/url';
import { type IssuePlanInput, PLAN_LINES, planSources } from '../../core/artifacts/promptSection';
import { DEFAULT_TRUST, refusedDocument, type TrustRules } from '../../core/artifacts/trust';
import { readInsideBounded, resolveInside } from '../workspacePath';
import { GitHubError, type GitHubClient } from './client';
import { withPostLock } from './postLock';

export type ArtifactListing = Partial<Record<ArtifactDir, string[]>>;

/** Bounded: a folder with more entries than this is read up to here. */
const MAX_DIR_ENTRIES = 5000;

/** The file names in thoughts/shared/{research,plans,reviews} (folders inside the workspace only). */
export async function listArtifactFiles(root: string): Promise<ArtifactListing> {
  const out: ArtifactListing = {};
  for (const dir of Object.keys(ARTIFACT_DIRS) as ArtifactDir[]) {
    let abs: string;
    try {
      abs = await resolveInside(root, ARTIFACT_DIRS[dir], { what: 'artifact folder' });
      const entries = await readdir(abs, { withFileTypes: true });
      out[dir] = entries
        .filter((e) => e.isFile() || e.isSymbolicLink())
        .slice(0, MAX_DIR_ENTRIES)
        .map((e) => e.name);
    } catch {
      out[dir] = [];
    }
  }
  return out;
}

async function isLocalFile(root: string, rel: string): Promise<boolean> {
  try {
    const abs = await resolveInside(root, rel, { what: 'artifact link' });
    return (await stat(abs)).isFile();
  } catch {
    return false;
  }
}

async function reviewVerdict(root: string, rel: string): Promise<Verdict | undefined> {
  try {
    const r = await readInsideBounded(root, rel, { maxBytes: 16_384, maxLines: 60 }, { what: 'review document' });
    return r ? verdictFromDocument(r.text) : undefined;
  } catch {
    return undefined;
  }
}

/** Owner/repo/host of the folder's `origin` remote (or the first remote), via simple-git. */
export async function repoFromGitRemote(root: string): Promise<RepoRef | undefined> {
  try {
    const remotes = await simpleGit({ baseDir: root, timeout: { block: 10_000 } }).getRemotes(true);
    const origin = remotes.find((r) => r.name === 'origin') ?? remotes[0];
    const url = origin?.refs.fetch || origin?.refs.push;
    return url ? parseRemoteUrl(url) : undefined;
  } catch {
    return undefined;
  }
}

export interface ReadIssuesOptions {
  readonly root: string;
  readonly repo?: RepoRef;
  /** Undefined: disk only. */
  readonly client?: GitHubClient;
  readonly issues: readonly number[];
  /** Why GitHub is not read, when `client` is undefined (shown as each issue's note). */
  readonly offlineReason?: string;
  /** Issues read in parallel (the throttling plugin limits concurrency further). Default 8. */
  readonly concurrency?: number;
  /** Who may link documents, which documents may be read (default: DEFAULT_TRUST). */
  readonly trust?: TrustRules;
  /**
   * The issue as last read, used when GitHub cannot be reached (a network failure or a time-out):
   * its comments link documents as they did then, and the result says when they were fetched.
   */
  readonly cached?: (issue: number) => CachedIssue | undefined;
}

/** Failures after which GitHub is unreachable, so the cached comments stand in. */
const UNREACHABLE: readonly GitHubError['kind'][] = ['network', 'timeout'];

export interface ReadIssue {
  readonly result: IssueArtifacts;
  /** The comments read (undefined when GitHub was not read). */
  readonly comments?: readonly IssueComment[];
  readonly errorKind?: GitHubError['kind'];
}

async function assemble(root: string, repo: RepoRef | undefined, number: number, listing: ArtifactListing, trust: TrustRules, gh?: { issue?: { title?: string; state?: string; labels?: readonly string[] }; comments?: readonly IssueComment[]; error?: string }): Promise<IssueArtifacts> {
  const disk: DiskArtifact[] = discoverOnDisk(number, listing);
  const local = new Set(disk.map((d) => d.path));
  if (gh?.comments && repo) {
    for (const a of scanComments(gh.comments).all) {
      const m = a.url ? mapArtifactUrl(a.url, repo) : undefined;
      // A document the rules refuse is not even looked at (no stat of .git/config).
      if (m?.local && !local.has(m.path) && !refusedDocument(m.path, trust) && (await isLocalFile(root, m.path))) {
        local.add(m.path);
      }
    }
  }
  const verdicts = new Map<string, Verdict>();
  for (const p of local) {
    if (p.startsWith(`${ARTIFACT_DIRS.reviews}/`)) {
      const v = await reviewVerdict(root, p);
      if (v) {
        verdicts.set(p, v);
      }
    }
  }
  // Files found by name are listed by readdir; confirm they are regular files inside the folder.
  const confirmed = new Set<string>();
  for (const p of local) {
    if (await isLocalFile(root, p)) {
      confirmed.add(p);
    }
  }
  return issueArtifacts({
    number,
    title: gh?.issue?.title,
    state: gh?.issue?.state,
    labels: gh?.issue?.labels,
    comments: gh?.comments,
    disk: disk.filter((d) => confirmed.has(d.path)),
    repo,
    isLocalFile: (p) => confirmed.has(p),
    diskVerdicts: verdicts,
    error: gh?.error,
    trust,
  });
}

/** Reads issues from GitHub (when there is a client) and the workspace. Never rejects for a GitHub failure. */
export async function readIssues(o: ReadIssuesOptions): Promise<ReadIssue[]> {
  const listing = await listArtifactFiles(o.root);
  const trust = o.trust ?? DEFAULT_TRUST;
  const out: ReadIssue[] = new Array(o.issues.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= o.issues.length) {
        return;
      }
      const number = o.issues[i];
      if (!o.client) {
        out[i] = { result: await assemble(o.root, o.repo, number, listing, trust, o.offlineReason ? { error: o.offlineReason } : undefined) };
        continue;
      }
      try {
        const { issue, comments, truncated, pagingNote } = await o.client.issueWithComments(number);
        const result = await assemble(o.root, o.repo, number, listing, trust, { issue, comments });
        const warnings = [...result.warnings, ...(truncated ? ['More than 10,000 comments: the newest were not read.'] : []), ...(pagingNote ? [pagingNote] : [])];
        out[i] = { comments, result: warnings.length > result.warnings.length ? { ...result, warnings } : result };
      } catch (e) {
        // Never a raw JavaScript error text in front of a user: say what failed and where.
        const err = e instanceof GitHubError ? e : new GitHubError('other', `Could not read issue #${number} from GitHub (an internal ${(e as Error)?.name ?? 'error'}): showing what is on disk.`);
        const cached = UNREACHABLE.includes(err.kind) ? o.cached?.(number) : undefined;
        const result = await assemble(o.root, o.repo, number, listing, trust, cached ? { issue: cached, comments: cached.comments, error: err.message } : { error: err.message });
        out[i] = { result: cached ? { ...result, cachedAt: cached.fetchedAt } : result, errorKind: err.kind };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency ?? 8, Math.max(1, o.issues.length)) }, worker));
  return out;
}

/** Attempts to post one comment when a POST fails in a way that may or may not have landed. */
const POST_ATTEMPTS = 3;

/** Failures after which a POST may have landed (or certainly did not): re-read, then decide. */
const UNSURE: readonly GitHubError['kind'][] = ['server', 'timeout', 'network', 'bad-answer'];

export interface PostOptions {
  /** The workspace folder: the posting lock lives in its `.ralph/` (shared by the CLI and the extension). */
  readonly root: string;
}

/**
 * Posts `bodyFor(comments)` unless it says there is nothing to post, holding the issue's posting
 * lock across re-read-then-post. A POST is never sent again blindly: after one that timed out or
 * failed, the comments are read again, and the comment is posted only if it did not land.
 * True when this call's comment is on the issue.
 */
async function postOnce(client: GitHubClient, root: string, issue: number, bodyFor: (comments: readonly IssueComment[]) => string | undefined): Promise<boolean> {
  return withPostLock(root, issue, async () => {
    for (let attempt = 1; ; attempt++) {
      // A failed read throws: nothing is posted on a read that did not succeed.
      const { comments } = await client.issueWithComments(issue);
      const body = bodyFor(comments);
      if (body === undefined) {
        // Linked already: by someone else (attempt 1), or by our POST that failed after landing.
        return attempt > 1;
      }
      try {
        await client.createComment(issue, body);
        return true;
      } catch (e) {
        if (!(e instanceof GitHubError) || !UNSURE.includes(e.kind) || attempt >= POST_ATTEMPTS) {
          throw e;
        }
      }
    }
  });
}

/**
 * Posts the missing comments for artifacts found on disk: for each, under the issue's posting
 * lock, the comments are re-read right before posting (conditional requests: unchanged comments
 * cost 304s), so a link already posted — by another window, the CLI, an agent, or an earlier run —
 * is never posted again. Returns what was posted.
 */
export async function selfHeal(
  client: GitHubClient,
  repo: RepoRef,
  issue: number,
  candidates: readonly Pick<ArtifactEntry, 'kind' | 'path' | 'status'>[],
  options: PostOptions,
): Promise<PlannedComment[]> {
  const ref = await client.getDefaultBranch();
  const posted: PlannedComment[] = [];
  for (const c of candidates) {
    if (planSelfHeal([c], [], repo, ref).length === 0) {
      continue; // not on disk, or a link that could not read back: nothing to post, nothing to read
    }
    let plan: PlannedComment | undefined;
    const done = await postOnce(client, options.root, issue, (comments) => {
      const [next] = planSelfHeal([c], comments, repo, ref);
      plan = next ?? plan; // after a POST that landed and then failed, the re-read plans nothing
      return next?.body;
    });
    if (done && plan) {
      posted.push(plan);
    }
  }
  return posted;
}

/** "Link to Issue": posts `## <Header>\n\n<url>` for a workspace document unless a comment links it already. */
export async function linkDocument(
  client: GitHubClient,
  repo: RepoRef,
  issue: number,
  kind: ArtifactKind,
  path: string,
  options: PostOptions,
): Promise<{ posted: boolean; url: string }> {
  const ref = await client.getDefaultBranch();
  const url = blobUrl(repo, ref, path);
  if (!linkedPaths([{ id: 0, body: linkBody(kind, url) }], repo).has(path)) {
    // It would never read back as linked, and be posted again at every try.
    throw new GitHubError('other', `"${path}" cannot be linked: a name with \\ or a drive letter means another file on Windows, so its link is not read as this document. Rename it.`);
  }
  const posted = await postOnce(client, options.root, issue, (comments) => (linkedPaths(comments, repo).has(path) ? undefined : linkBody(kind, url)));
  return { posted, url };
}

/**
 * The prompt's plan input: the first issue with a local plan, its first 100 lines, the research
 * path, and the comment that linked it. The plan must pass the document rule of trust.ts both as
 * named and as its real path after symbolic links (a link to .env is refused); otherwise the
 * prompt gets no plan.
 */
export async function readIssuePlan(root: string, issues: readonly IssueArtifacts[], trust: TrustRules = DEFAULT_TRUST): Promise<IssuePlanInput | undefined> {
  const src = planSources(issues);
  if (!src || refusedDocument(src.planPath, trust)) {
    return undefined;
  }
  try {
    const real = path.relative(await realpath(root), await resolveInside(root, src.planPath, { what: 'plan document' })).split(path.sep).join('/');
    if (refusedDocument(real, trust)) {
      return undefined;
    }
    const r = await readInsideBounded(root, real, { maxBytes: 64 * 1024, maxLines: PLAN_LINES }, { what: 'plan document' });
    if (!r) {
      return undefined;
    }
    const e = src.planEntry;
    return {
      issue: src.issue.number,
      title: src.issue.title,
      planPath: src.planPath,
      groupPlanPath: src.groupPlanPath,
      planHead: r.text,
      planTruncated: r.truncated,
      researchPath: src.researchPath,
      reviewVerdict: src.reviewVerdict,
      linkedBy: e.status === 'linked' ? { commentUrl: e.commentUrl, author: e.author, association: e.authorAssociation } : undefined,
    };
  } catch {
    return undefined;
  }
}
