/**
 * Sync's read of the feature branch on GitHub (issue 20): `git fetch origin <branch>` into
 * `refs/remotes/origin/<branch>`, then which stories pass in that commit's prd.json. This is not
 * the workspace's prd.json (services/prdWorkspace.ts is its one reader): it is what GitHub's
 * feature branch says, compared with it (core/github/remoteState.ts `comparePasses`).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { errorMessage } from '../../core/errorMessage';
import { analyzePrd } from '../../core/prd/index';

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
    text = (await run('git', ['show', `refs/remotes/origin/${branch}:${prdPath}`], { cwd, maxBuffer: 64 * 1024 * 1024 })).stdout;
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
