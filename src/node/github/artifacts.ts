/**
 * Reading an issue's artifacts from GitHub and the workspace, and self-healing missing links:
 * the one implementation behind the CLI's `artifacts` command and the extension's Issues view.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { simpleGit } from 'simple-git';
import { ARTIFACT_DIRS, type ArtifactDir, discoverOnDisk, type DiskArtifact } from '../../core/artifacts/discovery';
import { issueArtifacts, type ArtifactEntry, type IssueArtifacts } from '../../core/artifacts/issueArtifacts';
import { type IssueComment, linkBody, scanComments, type ArtifactKind, type Verdict, verdictFromDocument } from '../../core/artifacts/protocol';
import { planSelfHeal, linkedPaths, type PlannedComment } from '../../core/artifacts/selfHeal';
import { blobUrl, mapArtifactUrl, parseRemoteUrl, type RepoRef } from '../../core/artifacts/url';
import { type IssuePlanInput, PLAN_LINES, planSources } from '../../core/artifacts/promptSection';
import { DEFAULT_TRUST, refusedDocument, type TrustRules } from '../../core/artifacts/trust';
import { readInsideBounded, resolveInside } from '../workspacePath';
import { GitHubError, type GitHubClient } from './client';

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
}

export interface ReadIssue {
  readonly result: IssueArtifacts;
  /** The comments read (undefined when GitHub was not read). */
  readonly comments?: readonly IssueComment[];
  readonly errorKind?: GitHubError['kind'];
}

async function assemble(root: string, repo: RepoRef | undefined, number: number, listing: ArtifactListing, trust: TrustRules, gh?: { issue?: { title: string; state: string; labels: readonly string[] }; comments?: readonly IssueComment[]; error?: string }): Promise<IssueArtifacts> {
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
        const [issue, { comments, truncated }] = await Promise.all([o.client.getIssue(number), o.client.listComments(number)]);
        const result = await assemble(o.root, o.repo, number, listing, trust, { issue, comments });
        out[i] = {
          comments,
          result: truncated ? { ...result, warnings: [...result.warnings, 'More than 10,000 comments: the newest were not read.'] } : result,
        };
      } catch (e) {
        const err = e instanceof GitHubError ? e : new GitHubError('other', String((e as Error).message ?? e));
        out[i] = { result: await assemble(o.root, o.repo, number, listing, trust, { error: err.message }), errorKind: err.kind };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency ?? 8, Math.max(1, o.issues.length)) }, worker));
  return out;
}

/**
 * Posts the missing comments for artifacts found on disk. Re-reads the comments right before
 * posting (a conditional request: unchanged comments cost a 304), so a link already posted —
 * by another window, an agent, or an earlier run — is never posted again. Returns what was posted.
 */
export async function selfHeal(
  client: GitHubClient,
  repo: RepoRef,
  issue: number,
  candidates: readonly Pick<ArtifactEntry, 'kind' | 'path' | 'status'>[],
): Promise<PlannedComment[]> {
  const ref = await client.getDefaultBranch();
  const posted: PlannedComment[] = [];
  for (const c of candidates) {
    // Re-read before each post: another writer may have linked it a moment ago.
    const { comments } = await client.listComments(issue);
    const [plan] = planSelfHeal([c], comments, repo, ref);
    if (!plan) {
      continue;
    }
    await client.createComment(issue, plan.body);
    posted.push(plan);
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
): Promise<{ posted: boolean; url: string }> {
  const ref = await client.getDefaultBranch();
  const url = blobUrl(repo, ref, path);
  const { comments } = await client.listComments(issue);
  if (linkedPaths(comments, repo).has(path)) {
    return { posted: false, url };
  }
  await client.createComment(issue, linkBody(kind, url));
  return { posted: true, url };
}

/** The prompt's plan input: the first issue with a local plan, its first 100 lines, the research path. */
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
