// The demo's GitHub stand-in: the recorded answers of examples/demo-github.json (two issues of
// acme/taskflow and their comments), served on 127.0.0.1 by the tests' GitHub emulator
// (test/support/githubEmulator.ts, loaded with tsx). `npm start` starts it and gives the
// extension its URL through the setting ralph.github.standInUrl, so a newcomer sees linked
// documents, a missing plan and Self-heal without a token; nothing goes to github.com. Posted
// comments (Self-heal) live in memory only: every start begins from the recording again.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { repoRoot } from './vscode-host.mjs';

export const DEMO_GITHUB_RECORDING = path.join(repoRoot, 'examples', 'demo-github.json');

/** How long the stand-in serves at most (it stops with the process before that; setTimeout's limit is ~24.8 days). */
const LIFETIME_MS = 24 * 60 * 60 * 1000;

/** The recording, checked: a clear message names what is wrong, never a raw JavaScript error. */
function readRecording(file) {
  let rec;
  try {
    rec = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`the demo's recorded GitHub answers (${file}) could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  const ok =
    typeof rec?.owner === 'string' &&
    typeof rec.repo === 'string' &&
    Array.isArray(rec.issues) &&
    rec.issues.every((i) => Number.isInteger(i?.number) && typeof i.title === 'string' && Array.isArray(i.comments) && i.comments.every((c) => typeof c?.body === 'string'));
  if (!ok) {
    throw new Error(`the demo's recorded GitHub answers (${file}) must have "owner", "repo" and "issues" [{ "number", "title", "labels"?, "comments": [{ "body" }] }]`);
  }
  return rec;
}

/**
 * Starts the stand-in on 127.0.0.1 (a free port). Returns it, and the settings that point the
 * extension at it: the repository of the recording and `ralph.github.standInUrl`.
 * @param {{ recording?: string }} [options]
 */
export async function startDemoGitHub({ recording = DEMO_GITHUB_RECORDING } = {}) {
  const rec = readRecording(recording);
  const { GitHubEmulator } = await tsImport('../test/support/githubEmulator.ts', import.meta.url);
  const gh = new GitHubEmulator({ owner: rec.owner, repo: rec.repo, defaultBranch: rec.defaultBranch ?? 'main', lifetimeMs: LIFETIME_MS, maxRequests: 100_000 });
  for (const issue of rec.issues) {
    gh.addIssue(issue.number, issue.title, issue.labels ?? []);
    for (const c of issue.comments) {
      gh.addComment(issue.number, c.body);
    }
  }
  await gh.start();
  return { gh, settings: { 'ralph.github.repository': `${rec.owner}/${rec.repo}`, 'ralph.github.standInUrl': gh.apiUrl } };
}
