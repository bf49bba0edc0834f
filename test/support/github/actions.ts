/**
 * The emulator's Actions and pull request routes: workflow dispatches (each creates a queued run
 * whose `display_title` is `ralph: <story>`, as ralph.yml's run-name says), a workflow's state, its
 * runs (filters, paging), and pull requests (state, head, base).
 */
import type { GitHubEmulator } from '../githubEmulator';
import type { Exchange } from './exchange';
import type { EmulatedIssue, EmulatedRun } from './types';

export function runJson(gh: GitHubEmulator, r: EmulatedRun): Record<string, unknown> {
  const wf = gh.workflows.get(r.workflowFile);
  return {
    id: r.id,
    name: r.name,
    display_title: r.displayTitle,
    status: r.status,
    conclusion: r.conclusion,
    html_url: `https://github.com/${gh.owner}/${gh.repo}/actions/runs/${r.id}`,
    head_branch: r.headBranch,
    event: r.event,
    created_at: r.createdAt,
    updated_at: r.createdAt,
    workflow_id: wf?.id ?? 0,
    path: `.github/workflows/${r.workflowFile}`,
    run_number: r.id,
  };
}

export function pullJson(gh: GitHubEmulator, i: EmulatedIssue): Record<string, unknown> {
  const p = i.pull!;
  return {
    id: i.id,
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    merged_at: p.mergedAt,
    draft: false,
    head: { ref: p.head, label: `${(p.headRepo ?? `${gh.owner}/${gh.repo}`).split('/')[0]}:${p.head}`, sha: p.sha, repo: { full_name: p.headRepo ?? `${gh.owner}/${gh.repo}` } },
    base: { ref: p.base, label: `${gh.owner}:${p.base}` },
    html_url: `https://github.com/${gh.owner}/${gh.repo}/pull/${i.number}`,
    user: { login: i.author.login },
  };
}

function dispatch(gh: GitHubEmulator, x: Exchange, file: string): void {
  const wf = gh.workflows.get(file);
  if (!wf) {
    x.notFound();
    return;
  }
  if (wf.state !== 'active') {
    x.unprocessable("Cannot trigger a 'workflow_dispatch' on a disabled workflow");
    return;
  }
  const b = (x.body ?? {}) as { ref?: unknown; inputs?: unknown };
  if (typeof b.ref !== 'string' || b.ref === '') {
    x.unprocessable('Invalid request.\n\n"ref" wasn\'t supplied.');
    return;
  }
  if (gh.knownRefs && !gh.knownRefs.has(b.ref)) {
    x.unprocessable(`No ref found for: ${b.ref}`);
    return;
  }
  const inputs: Record<string, string> = {};
  for (const [k, v] of Object.entries(b.inputs && typeof b.inputs === 'object' ? b.inputs : {})) {
    if (typeof v !== 'string') {
      x.unprocessable(`Invalid value for input '${k}'`);
      return;
    }
    inputs[k] = v;
  }
  const run = gh.addRun(file, b.ref, inputs);
  gh.dispatches.push({ workflowFile: file, ref: b.ref, inputs, runId: run.id, inFlight: gh.runsInFlight() });
  x.send(204);
}

function listRuns(gh: GitHubEmulator, x: Exchange, file: string): void {
  if (!gh.workflows.has(file)) {
    x.notFound();
    return;
  }
  const q = x.url.searchParams;
  const runs = [...gh.runs.values()]
    .filter((r) => r.workflowFile === file)
    .filter((r) => !q.get('event') || r.event === q.get('event'))
    // As GitHub: `status` matches a status or a conclusion.
    .filter((r) => !q.get('status') || r.status === q.get('status') || r.conclusion === q.get('status'))
    .filter((r) => !q.get('branch') || r.headBranch === q.get('branch'))
    .reverse()
    .map((r) => runJson(gh, r));
  x.paged(runs, (slice) => ({ total_count: runs.length, workflow_runs: slice }));
}

function listPulls(gh: GitHubEmulator, x: Exchange): void {
  const q = x.url.searchParams;
  const state = q.get('state') ?? 'open';
  // `head` is `owner:branch` (the branch alone is accepted too).
  const head = q.get('head')?.replace(/^[^:]*:/, '');
  const base = q.get('base');
  const pulls = [...gh.issues.values()]
    .filter((i) => i.pull !== undefined)
    .filter((i) => state === 'all' || i.state === state)
    .filter((i) => !head || i.pull!.head === head)
    .filter((i) => !base || i.pull!.base === base)
    .reverse()
    .map((i) => pullJson(gh, i));
  x.paged(pulls);
}

/** Answers an Actions or pulls route under `/repos/{owner}/{repo}`; false when `rest` is none. */
export function actionRoutes(gh: GitHubEmulator, x: Exchange, rest: string): boolean {
  if (rest === '/pulls' && x.method === 'GET') {
    listPulls(gh, x);
    return true;
  }
  const checks = /^\/commits\/([^/]+)\/check-runs$/.exec(rest);
  if (checks && x.method === 'GET') {
    // The check runs of a pull request's head commit (a commit no pull request has: none).
    const pr = [...gh.issues.values()].find((i) => i.pull?.sha === decodeURIComponent(checks[1]));
    const runs = (pr?.pull?.checks ?? []).map((c, k) => ({ id: k + 1, name: c.name, status: c.status, conclusion: c.conclusion, head_sha: pr?.pull?.sha }));
    x.paged(runs, (slice) => ({ total_count: runs.length, check_runs: slice }));
    return true;
  }
  const m = /^\/actions\/workflows\/([^/]+)(\/dispatches|\/runs)?$/.exec(rest);
  if (!m) {
    return false;
  }
  const file = decodeURIComponent(m[1]);
  if (m[2] === '/dispatches' && x.method === 'POST') {
    dispatch(gh, x, file);
  } else if (m[2] === '/runs' && x.method === 'GET') {
    listRuns(gh, x, file);
  } else if (!m[2] && x.method === 'GET') {
    const wf = gh.workflows.get(file);
    if (!wf) {
      x.notFound();
    } else {
      x.conditional({ id: wf.id, node_id: `W_${wf.id}`, name: wf.name, path: `.github/workflows/${wf.file}`, state: wf.state });
    }
  } else {
    x.notFound();
  }
  return true;
}
