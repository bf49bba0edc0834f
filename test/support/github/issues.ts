/**
 * The emulator's issue routes (REST api version 2022-11-28): issues (list, read, create, update),
 * comments, labels, sub-issues, dependencies ("blocked by" / "blocking") and assignees, with the
 * answers' documented shapes, 422s, and the deleted (410) and transferred (301) switches.
 */
import type { GitHubEmulator } from '../githubEmulator';
import type { Exchange } from './exchange';
import type { EmulatedIssue } from './types';

/** GitHub allows this many sub-issues per parent. */
export const MAX_SUB_ISSUES = 100;
/** GitHub's limit on an issue's or a comment's body. */
const MAX_BODY_CHARS = 65_536;

const str = (v: unknown): v is string => typeof v === 'string';

/** The issue as the REST API answers it. */
export function issueJson(gh: GitHubEmulator, i: EmulatedIssue): Record<string, unknown> {
  const full = i.repository ?? `${gh.owner}/${gh.repo}`;
  const apiBase = `https://api.github.com/repos/${full}`;
  return {
    id: i.id,
    node_id: `I_kwDO${i.id.toString(36)}`,
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    state_reason: i.stateReason,
    labels: i.labels.map((name) => {
      const l = gh.labels.get(name.toLowerCase());
      return { id: l?.id ?? 0, name, color: l?.color ?? 'ededed', description: l?.description ?? null };
    }),
    user: { login: i.author.login, id: 1, type: 'User' },
    author_association: i.author.association,
    assignees: i.assignees.map((login) => ({ login })),
    comments: i.comments.length,
    url: `${apiBase}/issues/${i.number}`,
    repository_url: apiBase,
    html_url: `https://github.com/${full}/${i.pull ? 'pull' : 'issues'}/${i.number}`,
    milestone: i.milestone ? { number: i.milestone.number, title: i.milestone.title, state: 'open' } : null,
    ...(i.pull ? { pull_request: { url: `${apiBase}/pulls/${i.number}`, merged_at: i.pull.mergedAt } } : {}),
  };
}

function labelsOf(gh: GitHubEmulator, v: unknown): string[] | undefined {
  if (!Array.isArray(v)) {
    return undefined;
  }
  const names = v.map((l) => (str(l) ? l : str((l as { name?: unknown })?.name) ? (l as { name: string }).name : '')).filter((l) => l !== '');
  // As GitHub does: a label that does not exist yet is created.
  for (const name of names) {
    gh.ensureLabel(name);
  }
  return [...new Set(names)];
}

function listIssues(gh: GitHubEmulator, x: Exchange): void {
  const q = x.url.searchParams;
  const labels = q.get('labels')?.split(',').map((l) => l.trim().toLowerCase()).filter(Boolean) ?? [];
  const state = q.get('state') ?? 'open';
  // milestone: a number, "*" (any) or "none"
  const milestone = q.get('milestone');
  const list = [...gh.issues.values()]
    .filter((i) => !i.deleted && !i.transferredTo)
    .filter((i) => state === 'all' || i.state === state)
    .filter((i) => milestone === null || (milestone === '*' ? i.milestone !== undefined : milestone === 'none' ? i.milestone === undefined : String(i.milestone?.number) === milestone))
    .filter((i) => labels.every((l) => i.labels.some((has) => has.toLowerCase() === l)))
    .map((i) => issueJson(gh, i));
  x.paged(list);
}

function createIssue(gh: GitHubEmulator, x: Exchange): void {
  const b = (x.body ?? {}) as { title?: unknown; body?: unknown; labels?: unknown; assignees?: unknown };
  if (!str(b.title) || b.title.trim() === '') {
    x.unprocessable('Validation Failed', [{ resource: 'Issue', code: 'missing_field', field: 'title' }]);
    return;
  }
  if (b.body !== undefined && b.body !== null && (!str(b.body) || b.body.length > MAX_BODY_CHARS)) {
    x.unprocessable('Validation Failed', [{ resource: 'Issue', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }]);
    return;
  }
  const issue = gh.addIssue(gh.nextNumber(), b.title, labelsOf(gh, b.labels) ?? [], { body: str(b.body) ? b.body : null });
  if (Array.isArray(b.assignees)) {
    issue.assignees = b.assignees.filter(str);
  }
  x.send(201, issueJson(gh, issue));
}

function updateIssue(gh: GitHubEmulator, x: Exchange, issue: EmulatedIssue): void {
  const b = (x.body ?? {}) as Record<string, unknown>;
  if (b.state !== undefined && b.state !== 'open' && b.state !== 'closed') {
    x.unprocessable('Validation Failed', [{ resource: 'Issue', code: 'invalid', field: 'state' }]);
    return;
  }
  if (b.body !== undefined && b.body !== null && (!str(b.body) || b.body.length > MAX_BODY_CHARS)) {
    x.unprocessable('Validation Failed', [{ resource: 'Issue', code: 'custom', field: 'body' }]);
    return;
  }
  if (str(b.title)) {
    issue.title = b.title;
  }
  if (b.body !== undefined) {
    issue.body = str(b.body) ? b.body : null;
  }
  if (b.state === 'closed' && issue.state === 'open') {
    issue.state = 'closed';
    issue.stateReason = b.state_reason === 'not_planned' ? 'not_planned' : 'completed';
  } else if (b.state === 'open' && issue.state === 'closed') {
    issue.state = 'open';
    issue.stateReason = 'reopened';
  } else if (b.state_reason === 'completed' || b.state_reason === 'not_planned' || b.state_reason === 'reopened') {
    issue.stateReason = b.state_reason;
  }
  const labels = labelsOf(gh, b.labels);
  if (labels) {
    issue.labels = labels;
  }
  x.send(200, issueJson(gh, issue));
}

function comments(gh: GitHubEmulator, x: Exchange, issue: EmulatedIssue): void {
  if (x.method === 'GET') {
    x.paged(issue.comments);
    return;
  }
  const text = (x.body as { body?: unknown } | undefined)?.body;
  if (!str(text) || text === '') {
    x.unprocessable('Validation Failed');
    return;
  }
  if (text.length > MAX_BODY_CHARS) {
    x.unprocessable('Body is too long');
    return;
  }
  x.send(201, gh.addComment(issue.number, text));
}

function subIssues(gh: GitHubEmulator, x: Exchange, parent: EmulatedIssue, route: string): void {
  const childOf = (): EmulatedIssue | undefined => {
    const id = (x.body as { sub_issue_id?: unknown } | undefined)?.sub_issue_id;
    return typeof id === 'number' ? gh.issueById(id) : undefined;
  };
  if (route === '/sub_issues' && x.method === 'GET') {
    x.paged(parent.subIssues.map((n) => issueJson(gh, gh.issues.get(n)!)));
    return;
  }
  if (route === '/sub_issues' && x.method === 'POST') {
    const child = childOf();
    const replace = (x.body as { replace_parent?: unknown }).replace_parent === true;
    if (!child || child.repository !== undefined) {
      x.unprocessable('Validation Failed', [{ resource: 'SubIssue', code: 'invalid', field: 'sub_issue_id', message: 'The provided sub-issue does not exist' }]);
      return;
    }
    const current = gh.parentOf(child.number);
    if (child.number === parent.number || (current && !replace) || current?.number === parent.number) {
      x.unprocessable('An error occurred while adding the sub-issue to the parent issue. Issue may not contain duplicate sub-issues and Sub issue may only have one parent');
      return;
    }
    if (parent.subIssues.length >= MAX_SUB_ISSUES) {
      x.unprocessable(`An error occurred while adding the sub-issue to the parent issue. Parent cannot have more than ${MAX_SUB_ISSUES} sub-issues`);
      return;
    }
    if (current) {
      current.subIssues = current.subIssues.filter((n) => n !== child.number);
    }
    parent.subIssues.push(child.number);
    x.send(201, issueJson(gh, parent));
    return;
  }
  if (route === '/sub_issue' && x.method === 'DELETE') {
    const child = childOf();
    if (!child || !parent.subIssues.includes(child.number)) {
      x.notFound();
      return;
    }
    parent.subIssues = parent.subIssues.filter((n) => n !== child.number);
    x.send(200, issueJson(gh, parent));
    return;
  }
  if (route === '/parent' && x.method === 'GET') {
    const p = gh.parentOf(parent.number);
    if (!p) {
      x.notFound();
      return;
    }
    x.conditional(issueJson(gh, p));
    return;
  }
  x.notFound();
}

function dependencies(gh: GitHubEmulator, x: Exchange, issue: EmulatedIssue, route: string): void {
  if (!gh.dependenciesApi) {
    x.notFound();
    return;
  }
  if (route === '/dependencies/blocking' && x.method === 'GET') {
    x.paged([...gh.issues.values()].filter((i) => i.blockedBy.includes(issue.id)).map((i) => issueJson(gh, i)));
    return;
  }
  if (route === '/dependencies/blocked_by' && x.method === 'GET') {
    x.paged(issue.blockedBy.map((id) => gh.issueById(id)).filter((i) => i !== undefined).map((i) => issueJson(gh, i)));
    return;
  }
  if (route === '/dependencies/blocked_by' && x.method === 'POST') {
    const id = (x.body as { issue_id?: unknown } | undefined)?.issue_id;
    const blocker = typeof id === 'number' ? gh.issueById(id) : undefined;
    if (!blocker || blocker.id === issue.id) {
      x.unprocessable('Validation Failed', [{ resource: 'IssueDependency', code: 'invalid', field: 'issue_id' }]);
      return;
    }
    if (issue.blockedBy.includes(blocker.id)) {
      x.unprocessable('Validation Failed', [{ resource: 'IssueDependency', code: 'already_exists', field: 'issue_id', message: 'Issue dependency already exists' }]);
      return;
    }
    issue.blockedBy.push(blocker.id);
    x.send(201, issueJson(gh, blocker));
    return;
  }
  const del = /^\/dependencies\/blocked_by\/(\d+)$/.exec(route);
  if (del && x.method === 'DELETE') {
    const id = Number(del[1]);
    if (!issue.blockedBy.includes(id)) {
      x.notFound();
      return;
    }
    issue.blockedBy = issue.blockedBy.filter((b) => b !== id);
    x.send(200, issueJson(gh, gh.issueById(id) ?? issue));
    return;
  }
  x.notFound();
}

function labelRoutes(gh: GitHubEmulator, x: Exchange): void {
  if (x.method === 'GET') {
    x.paged([...gh.labels.values()].map((l) => ({ id: l.id, node_id: `LA_${l.id}`, name: l.name, color: l.color, description: l.description, default: false })));
    return;
  }
  const b = (x.body ?? {}) as { name?: unknown; color?: unknown; description?: unknown };
  if (!str(b.name) || b.name.trim() === '' || (b.color !== undefined && (!str(b.color) || !/^[0-9a-f]{6}$/i.test(b.color)))) {
    x.unprocessable('Validation Failed', [{ resource: 'Label', code: 'invalid', field: str(b.name) ? 'color' : 'name' }]);
    return;
  }
  if (gh.labels.has(b.name.toLowerCase())) {
    x.unprocessable('Validation Failed', [{ resource: 'Label', code: 'already_exists', field: 'name' }]);
    return;
  }
  const l = gh.ensureLabel(b.name, str(b.color) ? b.color : undefined, str(b.description) ? b.description : null);
  x.send(201, { id: l.id, node_id: `LA_${l.id}`, name: l.name, color: l.color, description: l.description, default: false });
}

/**
 * Answers a route under `/repos/{owner}/{repo}` (`rest`: the part after it) when it is one of
 * the issue routes; false when it is not.
 */
export function issueRoutes(gh: GitHubEmulator, x: Exchange, rest: string): boolean {
  if (rest === '/issues' && x.method === 'GET') {
    listIssues(gh, x);
    return true;
  }
  if (rest === '/issues' && x.method === 'POST') {
    createIssue(gh, x);
    return true;
  }
  if (rest === '/labels' && (x.method === 'GET' || x.method === 'POST')) {
    labelRoutes(gh, x);
    return true;
  }
  if (rest === '/milestones' && x.method === 'GET') {
    const seen = new Map([...gh.issues.values()].flatMap((i) => (i.milestone ? [[i.milestone.number, i.milestone] as const] : [])));
    x.paged([...seen.values()].map((m) => ({ number: m.number, title: m.title, state: 'open' })));
    return true;
  }
  const m = /^\/issues\/(\d+)(\/.*)?$/.exec(rest);
  if (!m) {
    return false;
  }
  const issue = gh.issues.get(Number(m[1]));
  const route = m[2] ?? '';
  if (!issue || issue.repository !== undefined) {
    x.notFound();
    return true;
  }
  if (issue.deleted) {
    x.send(410, { message: 'This issue was deleted', documentation_url: 'https://docs.github.com/rest/issues/issues#get-an-issue' });
    return true;
  }
  if (issue.transferredTo) {
    const t = issue.transferredTo;
    const location = `${x.apiUrl}/repos/${t.owner}/${t.repo}/issues/${t.number}${route}`;
    x.send(301, { message: 'Moved Permanently', url: location, documentation_url: 'https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects' }, { location });
    return true;
  }
  if (route === '' && x.method === 'GET') {
    x.conditional(issueJson(gh, issue));
  } else if (route === '' && x.method === 'PATCH') {
    updateIssue(gh, x, issue);
  } else if (route === '/comments' && (x.method === 'GET' || x.method === 'POST')) {
    comments(gh, x, issue);
  } else if (route === '/sub_issues' || route === '/sub_issue' || route === '/parent') {
    subIssues(gh, x, issue, route);
  } else if (route.startsWith('/dependencies/')) {
    dependencies(gh, x, issue, route);
  } else if (route === '/assignees' && x.method === 'POST') {
    const names = (x.body as { assignees?: unknown } | undefined)?.assignees;
    for (const login of Array.isArray(names) ? names.filter(str) : []) {
      if (!issue.assignees.includes(login)) {
        issue.assignees.push(login);
      }
    }
    x.send(201, issueJson(gh, issue));
  } else {
    x.notFound();
  }
  return true;
}
