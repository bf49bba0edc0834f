/**
 * Reading an issue's artifacts from GitHub and the workspace, and self-healing missing links:
 * the one implementation behind the CLI's `artifacts` command and the extension's Issues view.
 */
import { readdir, stat } from 'node:fs/promises';
import { simpleGit } from 'simple-git';
import { ARTIFACT_DIRS, type ArtifactDir, discoverOnDisk, type DiskArtifact } from '../../core/artifacts/discovery';
import { issueArtifacts, type ArtifactEntry, type IssueArtifacts } from '../../core/artifacts/issueArtifacts';
import { type IssueComment, linkBody, scanComments, type ArtifactKind, type Verdict, verdictFromDocument } from '../../core/artifacts/protocol';
import { planSelfHeal, linkedPaths, type PlannedComment } from '../../core/artifacts/selfHeal';
import { blobUrl, mapArtifactUrl, parseRemoteUrl, type RepoRef } from '../../core/artifacts/url';
import { type IssuePlanInput, PLAN_LINES, planSources } from '../../core/artifacts/promptSection';
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
}

export interface ReadIssue {
  readonly result: IssueArtifacts;
  /** The comments read (undefined when GitHub was not read). */
  readonly comments?: readonly IssueComment[];
  readonly errorKind?: GitHubError['kind'];
}

async function assemble(root: string, repo: RepoRef | undefined, number: number, listing: ArtifactListing, gh?: { issue?: { title: string; state: string; labels: readonly string[] }; comments?: readonly IssueComment[]; error?: string }): Promise<IssueArtifacts> {
  const disk: DiskArtifact[] = discoverOnDisk(number, listing);
  const local = new Set(disk.map((d) => d.path));
  if (gh?.comments && repo) {
    for (const a of scanComments(gh.comments).all) {
      const m = a.url ? mapArtifactUrl(a.url, repo) : undefined;
      if (m?.local && !local.has(m.path) && (await isLocalFile(root, m.path))) {
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
  });
}

/** Reads issues from GitHub (when there is a client) and the workspace. Never rejects for a GitHub failure. */
export async function readIssues(o: ReadIssuesOptions): Promise<ReadIssue[]> {
  const listing = await listArtifactFiles(o.root);
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
        out[i] = { result: await assemble(o.root, o.repo, number, listing, o.offlineReason ? { error: o.offlineReason } : undefined) };
        continue;
      }
      try {
        const [issue, { comments, truncated }] = await Promise.all([o.client.getIssue(number), o.client.listComments(number)]);
        const result = await assemble(o.root, o.repo, number, listing, { issue, comments });
        out[i] = {
          comments,
          result: truncated ? { ...result, warnings: [...result.warnings, 'More than 10,000 comments: the newest were not read.'] } : result,
        };
      } catch (e) {
        const err = e instanceof GitHubError ? e : new GitHubError('other', String((e as Error).message ?? e));
        out[i] = { result: await assemble(o.root, o.repo, number, listing, { error: err.message }), errorKind: err.kind };
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
export async function readIssuePlan(root: string, issues: readonly IssueArtifacts[]): Promise<IssuePlanInput | undefined> {
  const src = planSources(issues);
  if (!src) {
    return undefined;
  }
  try {
    const r = await readInsideBounded(root, src.planPath, { maxBytes: 64 * 1024, maxLines: PLAN_LINES }, { what: 'plan document' });
    if (!r) {
      return undefined;
    }
    return { issue: src.issue.number, title: src.issue.title, planPath: src.planPath, groupPlanPath: src.groupPlanPath, planHead: r.text, planTruncated: r.truncated, researchPath: src.researchPath, reviewVerdict: src.reviewVerdict };
  } catch {
    return undefined;
  }
}
