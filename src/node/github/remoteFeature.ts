/**
 * Where each published story stands on GitHub (issue 20), read with conditional requests: the
 * issues labelled `ralph`, the runs of `ralph.yml` (none when the workflow is not on the default
 * branch yet), the pull requests into the feature branch. The follower in VS Code and
 * `ralph-workbench github status` read alike.
 */
export async function readRemoteStates(client: Pick<GitHubClient, 'listIssuesWithLabel' | 'listWorkflowRuns' | 'listPulls' | 'listCheckRuns'>, feature: string, issueOf: ReadonlyMap<string, number>): Promise<Map<string, StoryRemote>> {
  const [issues, runs, pulls] = await Promise.all([
    client.listIssuesWithLabel('ralph'),
    client.listWorkflowRuns(WORKFLOW_FILE).catch((e: unknown) => {
      if ((e as { kind?: string }).kind === 'not-found') {
        return [];
      }
      throw e;
    }),
    feature ? client.listPulls({ state: 'all', base: feature }) : Promise.resolve([]),
  ]);
  // The checks of the stories' open pull requests (a few: one request each, conditional).
  const storyBranches = new Set([...issueOf.keys()].map((id) => storyBranchName(feature, id)));
  const seen: PullSeen[] = await Promise.all(
    pulls.map(async (p) => ({
      number: p.number,
      state: p.state,
      merged: p.merged,
      headRef: p.headRef,
      htmlUrl: p.htmlUrl,
      fromFork: p.fromFork,
      checks: p.state === 'open' && p.headSha && storyBranches.has(p.headRef) ? checksState(await client.listCheckRuns(p.headSha)) : undefined,
    })),
  );
  return remoteStates({
    feature,
    issueOf,
    issues: new Map(issues.map((i) => [i.number, { state: i.state, htmlUrl: i.htmlUrl }] as const)),
    runs: runs.map((r) => ({ id: r.id, displayTitle: r.displayTitle, status: r.status, conclusion: r.conclusion, htmlUrl: r.htmlUrl, createdAt: r.createdAt, event: r.event })),
    pulls: seen,
  });
}

/**
 * Sync's read of the feature branch on GitHub (issue 20): `git fetch origin <branch>` into
 * `refs/remotes/origin/<branch>`, then which stories pass in that commit's prd.json. This is not
 * the workspace's prd.json (services/prdWorkspace.ts is its one reader): it is what GitHub's
 * feature branch says, compared with it (core/github/remoteState.ts `comparePasses`).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { errorMessage } from '../../core/errorMessage';
import { checksState, type PullSeen, remoteStates, type StoryRemote } from '../../core/github/remoteState';
import { storyBranchName } from '../../core/parallel/names';
import { WORKFLOW_FILE } from '../../core/github/workflow';
import { analyzePrd } from '../../core/prd/index';
import type { GitHubClient } from './client';

const run = promisify(execFile);

/** The `passes` of each story of prd.json (`prdPath`, relative to `cwd`, slashes) on origin's `branch`. */
export async function remoteFeaturePasses(cwd: string, branch: string, prdPath: string): Promise<Map<string, boolean>> {
  try {
    // "--" ends the options: a branch name never reads as one.
    await run('git', ['fetch', '--quiet', 'origin', '--', `refs/heads/${branch}:refs/remotes/origin/${branch}`], { cwd, timeout: 120_000 });
  } catch (e) {
    throw new Error(`git could not fetch ${branch} from origin: ${errorMessage(e).split('\n').filter(Boolean).slice(-1).join(' ')}`);
  }
  let text: string;
  try {
    // `./` makes the path relative to the folder, not to the repository's top (a workspace may be a subfolder).
    text = (await run('git', ['show', `refs/remotes/origin/${branch}:./${prdPath}`], { cwd, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch {
    throw new Error(`origin/${branch} has no ${prdPath}: nothing to compare.`);
  }
  const out = new Map<string, boolean>();
  for (const s of analyzePrd(text).doc.stories) {
    if (!out.has(s.id)) {
      out.set(s.id, s.passes);
    }
  }
  return out;
}
