/**
 * GitHub failures said so a person knows what to do: the error type the client throws, the two
 * failures our fetch wrapper raises (a request that timed out, a connection that could not be
 * made) and the translation of whatever Octokit threw into a GitHubError.
 */

/**
 * 'moved': the issue was transferred (301; `location` says where). 'gone': it was deleted (410).
 * 'conflict': GitHub refused a write that contradicts what is there (a sub-issue that has
 * another parent, a dependency that cannot be).
 */
export type GitHubErrorKind = 'auth' | 'rate-limit' | 'forbidden' | 'not-found' | 'moved' | 'gone' | 'conflict' | 'server' | 'timeout' | 'network' | 'bad-answer' | 'lock' | 'other';

/** A failure said so a person knows what to do. */
export class GitHubError extends Error {
  constructor(
    readonly kind: GitHubErrorKind,
    message: string,
    readonly status?: number,
    /** For 'rate-limit': when the limit resets (ms since epoch). */
    readonly resetAt?: number,
    /** For 'moved': the URL GitHub's Location header gives (the issue's new place). */
    readonly location?: string,
  ) {
    super(message);
    this.name = 'GitHubError';
  }
}

/**
 * A request that got no answer within the time limit. Named AbortError on purpose: Octokit
 * rethrows an AbortError as it is, so @octokit/plugin-retry does not send it again and the
 * time the message names is the time the user waited.
 */
export class RequestTimedOut extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'AbortError';
  }
}

/** A connection that could not be made (or was cut), with why, in words. */
export class ConnectFailure extends Error {
  constructor(
    readonly host: string,
    readonly why: string,
  ) {
    super(`Cannot reach ${host}: ${why}`);
    this.name = 'ConnectFailure';
  }
}

/** Why fetch could not connect, from the error undici gives (`fetch failed`, its cause has a code). */
export function connectFailure(url: string, e: unknown): ConnectFailure {
  let host = url;
  let port = '';
  try {
    const u = new URL(url);
    host = u.host;
    port = u.port;
  } catch {
    // keep the text as given
  }
  const cause = ((e as { cause?: unknown }).cause ?? e) as { code?: string; message?: string };
  const code = String(cause.code ?? '');
  const text = String(cause.message ?? e);
  let why: string;
  if (code === 'ECONNREFUSED') {
    why = 'the connection was refused (nothing listens there)';
  } else if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') {
    why = 'the connection was reset';
  } else if (code === 'ENOTFOUND') {
    why = 'the host name was not found (DNS)';
  } else if (code === 'EAI_AGAIN') {
    why = 'the host name could not be looked up (DNS: offline?)';
  } else if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    why = 'connecting timed out';
  } else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ENETDOWN') {
    why = 'no route to the host (offline?)';
  } else if (/^bad port$/i.test(text)) {
    why = `the HTTP client refuses port ${port} (a port browsers block): use another port`;
  } else if (/CERT|SSL|TLS|SELF_SIGNED|VERIFY/i.test(code + text)) {
    why = `its TLS certificate was not accepted (${code || text})`;
  } else {
    why = code ? `${text} (${code})` : text;
  }
  return new ConnectFailure(host, why);
}

/** The first error in a `cause` chain that is one of ours (Octokit wraps what fetch threw). */
export function ownCause(e: unknown): RequestTimedOut | ConnectFailure | GitHubError | undefined {
  for (let c = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    if (c instanceof RequestTimedOut || c instanceof ConnectFailure || c instanceof GitHubError) {
      return c;
    }
  }
  return undefined;
}

/** What the messages say about the request: `acme/taskflow issue #42`. */
export interface FailureContext {
  readonly where: string;
  readonly timeoutMs: number;
}

/** Whatever a request threw, as a GitHubError with a message that says what to do. */
export function describeFailure(e: unknown, ctx: FailureContext): GitHubError {
  const own = ownCause(e);
  if (own instanceof GitHubError) {
    return own;
  }
  const seconds = Math.round(ctx.timeoutMs / 100) / 10;
  if (own instanceof RequestTimedOut) {
    return new GitHubError('timeout', `GitHub did not answer within ${seconds} s (${ctx.where}): check your network, then Refresh.`);
  }
  if (own instanceof ConnectFailure) {
    return new GitHubError('network', `${own.message}. Are you offline? Showing what is on disk.`);
  }
  const err = e as { status?: number; message?: string; name?: string; response?: { headers?: Record<string, string | undefined> } };
  const status = err.status;
  const headers = err.response?.headers ?? {};
  const where = ctx.where;
  const message = String(err.message ?? e);
  if (err.name === 'TimeoutError' || err.name === 'AbortError') {
    return new GitHubError('timeout', `GitHub did not answer within ${seconds} s (${where}): check your network, then Refresh.`, status);
  }
  if (status === 401) {
    return new GitHubError('auth', `GitHub refused the credentials (401) for ${where}: sign in to GitHub again (CLI: set GH_TOKEN or GITHUB_TOKEN to a valid token).`, 401);
  }
  if ((status === 403 || status === 429) && (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message))) {
    const reset = Number(headers['x-ratelimit-reset']);
    const resetAt = Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined;
    const when = resetAt ? ` It resets at ${new Date(resetAt).toISOString().slice(11, 19)} UTC (in ${Math.max(1, Math.ceil((resetAt - Date.now()) / 60_000))} min).` : '';
    return new GitHubError('rate-limit', `GitHub rate limit reached while reading ${where}.${when} Showing what is on disk until then.`, status, resetAt);
  }
  const accepted = headers['x-accepted-github-permissions'];
  if (status === 403 && accepted) {
    return new GitHubError('forbidden', `GitHub refused ${where} (403: ${message}): the token needs ${permissionWords(accepted)}. Give the token that permission (or sign in again), then retry.`, 403);
  }
  if (status === 403) {
    return new GitHubError('forbidden', `GitHub denied access to ${where} (403): the account may not see this repository, or the token lacks the "repo" scope.`, 403);
  }
  if (status === 404) {
    return new GitHubError('not-found', `Not found on GitHub (404): ${where}. Check the repository (setting ralph.github.repository or --repo) and that your account can see it.`, 404);
  }
  if (status === 410) {
    return new GitHubError('gone', `Deleted on GitHub (410): ${where} no longer exists.`, 410);
  }
  if (status !== undefined && status >= 500) {
    return new GitHubError('server', `GitHub answered ${status} (server error) for ${where}, also after retrying: try Refresh later.`, status);
  }
  return new GitHubError('other', `GitHub request for ${where} failed${status ? ` (${status})` : ''}: ${message}`, status);
}

/** `issues=write` → `Issues: write`, `pull_requests=read` → `Pull requests: read`. */
function permissionName(pair: string): string {
  const [name, level] = pair.split('=').map((s) => s.trim());
  const words = name.replace(/_/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}${level ? `: ${level}` : ''}`;
}

/**
 * The `x-accepted-github-permissions` header in words: sets separated by `;` are alternatives,
 * permissions within a set (`,`) are all needed. `issues=write` → `Issues: write`.
 */
export function permissionWords(header: string): string {
  const sets = header
    .split(';')
    .map((set) =>
      set
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '')
        .map(permissionName),
    )
    .filter((set) => set.length > 0);
  return sets.map((set) => set.join(' and ')).join(', or ');
}

/** A transferred issue (301): where GitHub says it went, in a message. */
export function movedError(where: string, location: string | undefined): GitHubError {
  const to = /\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)/.exec(location ?? '');
  const place = to ? ` to ${to[1]}#${to[2]}` : location ? ` (${location})` : '';
  return new GitHubError('moved', `Moved on GitHub (301): ${where} was transferred${place}. Link the story to the issue where it is now.`, 301, undefined, location);
}

/** What GitHub itself said in a refused request ("Validation Failed"), without our "GitHub request for … failed (422): ". */
export function gitHubSaid(e: GitHubError): string {
  return e.message.replace(/^GitHub request for .*? failed \(\d+\): /, '');
}
