/**
 * GitHub for a CLI command (`artifacts`, `context`): the repository (--repo, else the origin
 * remote), the REST base (--api-url), the token from GH_TOKEN or GITHUB_TOKEN (never a file),
 * --offline. One implementation, so both commands read GitHub alike.
 */
import { apiUrlForHost, parseRepoSlug, type RepoRef, webHostForApiUrl } from '../core/artifacts/url';
import { repoFromGitRemote } from '../node/github/artifacts';
import { DEFAULT_API_URL, GitHubClient } from '../node/github/client';

export interface GitHubCliOptions {
  readonly repo?: string;
  readonly apiUrl?: string;
  readonly offline: boolean;
  readonly env: NodeJS.ProcessEnv;
  /** The workspace folder (its origin remote names the repository when --repo is not given). */
  readonly root: string;
  /** Client tuning for tests (timeouts, back-off). */
  readonly clientOptions?: { timeoutMs?: number; retries?: number; retryAfterBaseMs?: number; maxRateLimitWaitSeconds?: number; writeIntervalMs?: number };
  /** The command writes to GitHub: without a token it cannot work at all (no files-on-disk fallback). */
  readonly requireToken?: boolean;
  /** `ralph-workbench artifacts`: the start of every message. */
  readonly prefix: string;
  readonly stderr: (s: string) => void;
}

export type GitHubCliAccess =
  | { readonly error: string }
  | {
      readonly repo?: RepoRef;
      /** Undefined: GitHub is not read (offline, no token, no repository). */
      readonly client?: GitHubClient;
      /** Why GitHub is not read, shown as each issue's note. */
      readonly offlineReason?: string;
      /** True when GitHub should have been read and could not be (exit 1). */
      readonly failed: boolean;
    };

export async function openGitHub(o: GitHubCliOptions): Promise<GitHubCliAccess> {
  const apiArg = o.apiUrl?.trim();
  if (apiArg !== undefined && !/^https?:\/\/\S+$/.test(apiArg)) {
    return { error: `${o.prefix}: --api-url must be an http(s) URL such as https://HOST/api/v3\n` };
  }
  let repo: RepoRef | undefined;
  if (o.repo !== undefined) {
    repo = parseRepoSlug(o.repo, webHostForApiUrl(apiArg ?? DEFAULT_API_URL));
    if (!repo) {
      return { error: `${o.prefix}: --repo must be OWNER/REPO, got "${o.repo}"\n` };
    }
  } else {
    repo = await repoFromGitRemote(o.root);
  }
  const apiUrl = apiArg ?? (repo ? apiUrlForHost(repo.host) : DEFAULT_API_URL);
  const token = (o.env.GH_TOKEN || o.env.GITHUB_TOKEN || '').trim() || undefined;
  if (o.offline) {
    return { repo, failed: false };
  }
  if (!token && o.requireToken) {
    o.stderr(`${o.prefix}: needs a token in GH_TOKEN or GITHUB_TOKEN that may write issues (a fine-grained token with Issues: read and write, or a classic token with the repo scope).\n`);
    return { repo, failed: true };
  }
  if (!token) {
    o.stderr(`${o.prefix}: no GH_TOKEN or GITHUB_TOKEN: showing files on disk only (set one to read the issue comments).\n`);
    return { repo, failed: false };
  }
  if (!repo) {
    o.stderr(`${o.prefix}: no GitHub repository: the origin remote is not on GitHub; pass --repo OWNER/REPO.\n`);
    return { repo, failed: true, offlineReason: 'No GitHub repository: pass --repo OWNER/REPO. Showing files on disk only.' };
  }
  const client = new GitHubClient({ token, apiUrl, owner: repo.owner, repo: repo.repo, ...o.clientOptions, log: (m) => o.stderr(`${o.prefix}: ${m}\n`) });
  return { repo, client, failed: false };
}
