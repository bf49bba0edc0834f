/**
 * Artifact URLs ↔ workspace paths, and the repository a git remote names. Pure.
 * `https://<host>/OWNER/REPO/blob/<ref>/<path>` names the local `<path>` only when OWNER/REPO is
 * this repository on this host and `<path>` stays inside the workspace; anything else is remote.
 */

export interface RepoRef {
  readonly owner: string;
  readonly repo: string;
  /** Web host: `github.com`, or the GitHub Enterprise host (`ghe.example.com`). */
  readonly host: string;
}

export type MappedUrl =
  | { readonly local: true; readonly path: string; readonly ref: string }
  | { readonly local: false; readonly reason: string };

function sameHost(a: string, b: string): boolean {
  const norm = (h: string): string => h.toLowerCase().replace(/^www\./, '');
  return norm(a) === norm(b);
}

/** Repository-relative path segments, decoded, or undefined when one could leave the folder. */
function safeSegments(segments: readonly string[]): string[] | undefined {
  const out: string[] = [];
  for (const raw of segments) {
    let s: string;
    try {
      s = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (s === '' || s === '.' || s === '..' || /[\\/\0]/.test(s) || /^[a-zA-Z]:$/.test(s)) {
      return undefined;
    }
    out.push(s);
  }
  return out.length > 0 ? out : undefined;
}

/**
 * Maps an artifact URL to a path relative to the workspace root (with `/`), when it is a blob
 * of this repository. A ref with slashes (`feature/x`) is recognised when the path after it
 * starts with `thoughts/`; otherwise the ref is the first segment after `blob`.
 */
export function mapArtifactUrl(url: string, repo: RepoRef | undefined): MappedUrl {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { local: false, reason: 'not a URL' };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    return { local: false, reason: 'not a web link' };
  }
  if (!repo) {
    return { local: false, reason: 'this folder has no GitHub repository' };
  }
  if (!sameHost(u.host, repo.host)) {
    return { local: false, reason: `on ${u.host}, not ${repo.host}` };
  }
  // The raw path keeps %2F and %2E%2E encoded, so a segment cannot smuggle a separator.
  const parts = u.pathname.split('/').slice(1);
  const [owner, name, blob, ...rest] = parts;
  if (!owner || !name || owner.toLowerCase() !== repo.owner.toLowerCase() || name.toLowerCase() !== repo.repo.toLowerCase()) {
    return { local: false, reason: `in ${owner ?? '?'}/${name ?? '?'}, not ${repo.owner}/${repo.repo}` };
  }
  if (blob !== 'blob' || rest.length < 2) {
    return { local: false, reason: 'not a file in the repository (no /blob/<ref>/<path>)' };
  }
  // new URL() has already resolved "." and ".." segments, also encoded ones (`%2e%2E`, `.%2e`);
  // look at the raw text: a segment that decodes to "." or ".." is refused, `name%2E` is a name.
  const rawPath = url.replace(/[?#].*$/, '');
  if (rawPath.split('/').some((seg) => /^(?:\.|%2e){1,2}$/i.test(seg))) {
    return { local: false, reason: 'the path leaves the workspace (..)' };
  }
  let refEnd = 1;
  const t = rest.indexOf('thoughts', 1);
  if (t > 1) {
    refEnd = t;
  }
  const segments = safeSegments(rest.slice(refEnd));
  if (!segments) {
    return { local: false, reason: 'the path leaves the workspace' };
  }
  const ref = safeSegments(rest.slice(0, refEnd));
  if (!ref) {
    return { local: false, reason: 'not a file in the repository (the ref is not a valid path)' };
  }
  return { local: true, path: segments.join('/'), ref: ref.join('/') };
}

/**
 * One path segment, encoded so that a reader of the comment takes the whole URL back: besides what
 * encodeURIComponent encodes, `! ' ( ) *` (a reader stops at quotes and parentheses and strips
 * trailing `!*`), and a trailing `.` or `_` (stripped as sentence punctuation).
 */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/[._]$/, (c) => (c === '.' ? '%2E' : '%5F'));
}

/** The web URL of a file of this repository on a ref (each path segment encoded, see encodeSegment). */
export function blobUrl(repo: RepoRef, ref: string, path: string): string {
  const enc = (p: string): string => p.split('/').map(encodeSegment).join('/');
  return `https://${repo.host}/${repo.owner}/${repo.repo}/blob/${enc(ref)}/${enc(path)}`;
}

/** The web URL of an issue. */
export function issueUrl(repo: RepoRef, issue: number): string {
  return `https://${repo.host}/${repo.owner}/${repo.repo}/issues/${issue}`;
}

/**
 * Owner, repo and host from a git remote URL: `https://host/o/r(.git)`, `git@host:o/r(.git)`,
 * `ssh://git@host(:port)/o/r(.git)`. Undefined for anything else.
 */
export function parseRemoteUrl(remote: string): RepoRef | undefined {
  const s = remote.trim();
  let host: string;
  let path: string;
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(s);
  if (/^[a-z+]+:\/\//i.test(s)) {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      return undefined;
    }
    host = u.hostname;
    path = u.pathname;
  } else if (scp) {
    host = scp[1];
    path = scp[2];
  } else {
    return undefined;
  }
  const m = /^\/*([^/\s]+)\/([^/\s]+?)(?:\.git)?\/*$/.exec(path);
  if (!m || !host) {
    return undefined;
  }
  return { host: host.toLowerCase(), owner: m[1], repo: m[2] };
}

/** `OWNER/REPO` (setting, --repo) with the given host. */
export function parseRepoSlug(slug: string, host: string): RepoRef | undefined {
  const m = /^\s*([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\s*$/.exec(slug);
  return m ? { owner: m[1], repo: m[2], host } : undefined;
}

/**
 * The REST base URL for a web host, and back. github.com ↔ https://api.github.com;
 * `*.ghe.com` ↔ https://api.<x>.ghe.com; any other host (GHES) ↔ https://<host>/api/v3.
 * A loopback API URL (a local proxy or the tests' emulator) stands for github.com.
 */
export function apiUrlForHost(host: string): string {
  const h = host.toLowerCase();
  if (h === 'github.com' || h === 'www.github.com') {
    return 'https://api.github.com';
  }
  if (h.endsWith('.ghe.com')) {
    return `https://api.${h}`;
  }
  return `https://${h}/api/v3`;
}

export function webHostForApiUrl(apiUrl: string): string {
  let u: URL;
  try {
    u = new URL(apiUrl);
  } catch {
    return 'github.com';
  }
  const h = u.hostname.toLowerCase();
  // A loopback API is a local proxy or emulator standing in for github.com.
  if (h === 'api.github.com' || h === '127.0.0.1' || h === 'localhost' || h === '[::1]') {
    return 'github.com';
  }
  if (h.startsWith('api.') && h.endsWith('.ghe.com')) {
    return h.slice(4);
  }
  return u.port ? `${h}:${u.port}` : h;
}

/** The hosts a GitHub stand-in may run on: this machine only. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The `ralph.github.standInUrl` setting read by its rule: an http URL on 127.0.0.1, localhost or
 * [::1] (a local stand-in for GitHub: the demo's recorded answers, an emulator), with no user
 * name, password, query or fragment. Anything else is refused with a message saying why, so
 * issue text never travels to another machine without a token's protection. Empty: no stand-in.
 */
export function standInUrl(raw: string): { url?: string; problem?: string } {
  const text = raw.trim();
  if (text === '') {
    return {};
  }
  const problem = (why: string): { problem: string } => ({ problem: `ralph.github.standInUrl must be an http URL on 127.0.0.1, localhost or [::1] (it is "${text}": ${why}); GitHub is used instead.` });
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return problem('not a URL');
  }
  if (u.protocol !== 'http:') {
    return problem(`${u.protocol.replace(/:$/, '')} is not http`);
  }
  if (!LOOPBACK_HOSTS.has(u.hostname.toLowerCase())) {
    return problem(`${u.hostname} is not this machine`);
  }
  if (u.username || u.password || u.search || u.hash) {
    return problem('no user name, password, query or fragment');
  }
  return { url: `${u.protocol}//${u.host}${u.pathname}`.replace(/\/+$/, '') };
}
