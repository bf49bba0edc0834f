/**
 * The Artifact Comment Protocol (SPEC.md, seeds/000): a GitHub issue comment whose first line is
 * one of the section headers links one artifact of the research → plan → review → implement
 * pipeline. The artifact's URL is the first URL after the header; up to three summary lines
 * follow; a Plan Review carries `VERDICT: APPROVED | NEEDS_ITERATION`.
 * Pure: no I/O, no vscode.
 */

import { linesOf, type Verdict, verdictOf, unquoted, urlsInLine, visibleLines } from './commentText';

export type { Verdict } from './commentText';
export type ArtifactKind = 'research' | 'plan' | 'group-plan' | 'review' | 'implementation';

export const ARTIFACT_KINDS: readonly ArtifactKind[] = ['research', 'plan', 'group-plan', 'review', 'implementation'];

/** The exact first-line header of each kind. */
export const HEADERS: Readonly<Record<ArtifactKind, string>> = {
  research: '## Research Document',
  plan: '## Implementation Plan',
  'group-plan': '## Group Implementation Plan',
  review: '## Plan Review',
  implementation: '## Implementation Complete',
};

export const KIND_LABELS: Readonly<Record<ArtifactKind, string>> = {
  research: 'Research',
  plan: 'Plan',
  'group-plan': 'Group plan',
  review: 'Plan review',
  implementation: 'Implementation',
};

export const SELF_HEAL_NOTE = '(Self-healed: artifact was found on disk but not linked via comment)';

const headerToKind = new Map<string, ArtifactKind>(ARTIFACT_KINDS.map((k) => [HEADERS[k], k]));

/** A comment as the REST API returns it (only the fields the protocol reads). */
export interface IssueComment {
  readonly id: number;
  readonly body?: string | null;
  readonly created_at?: string;
  readonly html_url?: string;
  readonly user?: { readonly login?: string } | null;
  /** The author's relation to the repository (REST `author_association`): OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, … */
  readonly author_association?: string | null;
}

export interface ArtifactComment {
  readonly kind: ArtifactKind;
  readonly commentId: number;
  readonly commentUrl?: string;
  readonly createdAt?: string;
  /** The comment author's login and `author_association` (who may link what: trust.ts). */
  readonly author?: string;
  readonly authorAssociation?: string;
  /** The first URL a reader sees after the header; undefined when the comment has none. */
  readonly url?: string;
  /** Up to three non-empty lines after the URL (the VERDICT line excluded). */
  readonly summary: readonly string[];
  readonly verdict?: Verdict;
  readonly selfHealed: boolean;
  /** What is unusual about this comment, said so a person can act on it. */
  readonly notes: readonly string[];
}

/** Why a comment that mentions a header is not an artifact comment. */
export interface IgnoredComment {
  readonly commentId: number;
  readonly commentUrl?: string;
  readonly reason: string;
}

export type ParsedComment = { readonly artifact: ArtifactComment } | { readonly ignored: IgnoredComment } | null;

/** The first http(s) URL in a line, trailing punctuation removed. */
export function firstUrl(line: string): string | undefined {
  return urlsInLine(line)[0]?.url;
}

/** Any line that is a header, quoted or indented or not. */
function mentionedHeader(line: string): { kind: ArtifactKind; quoted: boolean } | undefined {
  if (!line.includes('## ')) {
    return undefined;
  }
  const { text, quoted } = unquoted(line);
  const kind = text.length <= LONGEST_HEADER ? headerToKind.get(text) : undefined;
  return kind ? { kind, quoted } : undefined;
}

/** GitHub's maximum comment body (characters). */
export const MAX_COMMENT_CHARS = 65_536;

const LONGEST_HEADER = Math.max(...ARTIFACT_KINDS.map((k) => HEADERS[k].length));

/**
 * Reads one comment as a person sees it (issue 16): HTML comments, tags' attributes and link
 * reference definitions are not read, and a link whose text shows a URL counts as that URL,
 * never as its hidden target. Returns the artifact it links, or why a comment that mentions a
 * header is not an artifact comment (header not on the first line, quoted header), or null for
 * an ordinary comment. Linear in the comment's length.
 */
export function parseArtifactComment(comment: IssueComment): ParsedComment {
  const full = comment.body ?? '';
  // GitHub refuses a longer body: anything beyond is not a comment GitHub sent, and is not read.
  const body = full.length > MAX_COMMENT_CHARS ? full.slice(0, MAX_COMMENT_CHARS) : full;
  const lines = visibleLines(body);
  let first = 0;
  while (first < lines.length && lines[first].trim() === '') {
    first++;
  }
  if (first >= lines.length) {
    return null;
  }
  const head = lines[first].trimEnd();
  const kind = head.length <= LONGEST_HEADER ? headerToKind.get(head) : undefined;
  if (!kind) {
    for (let i = first; i < lines.length; i++) {
      const m = mentionedHeader(lines[i]);
      if (m) {
        const reason = m.quoted
          ? `quotes "${HEADERS[m.kind]}" (a quoted header is not an artifact link)`
          : i === first
            ? `starts with "${lines[i].trim()}", not exactly "${HEADERS[m.kind]}"`
            : `has "${HEADERS[m.kind]}" on line ${i + 1}, not the first line (not an artifact link)`;
        return { ignored: { commentId: comment.id, commentUrl: comment.html_url, reason } };
      }
    }
    return null;
  }
  const notes: string[] = [];
  let url: string | undefined;
  let urlLine = -1;
  let verdict: Verdict | undefined;
  let urls = 0;
  for (let i = first + 1; i < lines.length; i++) {
    const v = verdictOf(lines[i]);
    if (v && verdict === undefined) {
      verdict = v;
    }
    for (const u of urlsInLine(lines[i])) {
      // A link's target is what a reader clicks, not what they read: when the link's text is
      // itself a URL, that URL (already seen, it comes first) is the one that counts.
      const shownUrl = u.linkText === undefined ? undefined : firstUrl(u.linkText);
      if (shownUrl !== undefined) {
        if (shownUrl !== u.url && url === shownUrl) {
          notes.push(`the link on line ${i + 1} shows ${shownUrl} but points elsewhere: the URL shown is the artifact`);
        }
        continue;
      }
      urls++;
      if (url === undefined) {
        url = u.url;
        urlLine = i;
      }
    }
    const h = i > first + 1 ? mentionedHeader(lines[i]) : undefined;
    if (h && !h.quoted) {
      notes.push(`line ${i + 1} starts another section (${lines[i].trim()}); only the first header counts`);
    }
  }
  if (body !== full) {
    notes.push(`longer than ${MAX_COMMENT_CHARS} characters (GitHub's limit): only the start was read`);
  }
  if (url === undefined) {
    notes.push('no URL after the header');
  } else if (urls > 1) {
    notes.push(`${urls} URLs in the comment; the first one after the header is the artifact`);
  }
  const summary: string[] = [];
  const selfHealed = body.includes(SELF_HEAL_NOTE);
  for (let i = (urlLine >= 0 ? urlLine : first) + 1; i < lines.length && summary.length < 3; i++) {
    const t = lines[i].trim();
    if (t === '' || verdictOf(t) || t === SELF_HEAL_NOTE) {
      continue;
    }
    summary.push(t);
  }
  if (kind !== 'review' && verdict !== undefined) {
    verdict = undefined;
  }
  if (kind === 'review' && verdict === undefined) {
    notes.push('no VERDICT line (APPROVED or NEEDS_ITERATION)');
  }
  return {
    artifact: {
      kind,
      commentId: comment.id,
      commentUrl: comment.html_url,
      createdAt: comment.created_at,
      author: comment.user?.login ?? undefined,
      authorAssociation: comment.author_association ?? undefined,
      url,
      summary,
      verdict,
      selfHealed,
      notes,
    },
  };
}

export interface ScannedComments {
  /** The most recent artifact comment of each kind. */
  readonly latest: ReadonlyMap<ArtifactKind, ArtifactComment>;
  /** Every artifact comment, oldest first. */
  readonly all: readonly ArtifactComment[];
  readonly ignored: readonly IgnoredComment[];
}

function time(c: { createdAt?: string }): number {
  const t = c.createdAt ? Date.parse(c.createdAt) : NaN;
  return Number.isFinite(t) ? t : -Infinity;
}

/** Reads every comment of an issue; the most recent comment of a kind wins (creation time, then id). */
export function scanComments(comments: readonly IssueComment[]): ScannedComments {
  const all: ArtifactComment[] = [];
  const ignored: IgnoredComment[] = [];
  for (const c of comments) {
    const p = parseArtifactComment(c);
    if (p && 'artifact' in p) {
      all.push(p.artifact);
    } else if (p) {
      ignored.push(p.ignored);
    }
  }
  all.sort((a, b) => time(a) - time(b) || a.commentId - b.commentId);
  const latest = new Map<ArtifactKind, ArtifactComment>();
  for (const a of all) {
    latest.set(a.kind, a);
  }
  return { latest, all, ignored };
}

/** The verdict written in a review document: front matter `verdict:` or a `VERDICT:` / `**Verdict: X**` line. */
export function verdictFromDocument(text: string): Verdict | undefined {
  for (const line of linesOf(text).slice(0, 60)) {
    const v = verdictOf(line);
    if (v) {
      return v;
    }
  }
  return undefined;
}

/** The body of a self-heal comment: header, URL, the self-heal note (seeds/000 Phase 4). */
export function selfHealBody(kind: ArtifactKind, url: string): string {
  return `${HEADERS[kind]}\n\n${url}\n\n${SELF_HEAL_NOTE}`;
}

/** The body of a comment a person asks for ("Link to Issue"): header and URL. */
export function linkBody(kind: ArtifactKind, url: string): string {
  return `${HEADERS[kind]}\n\n${url}`;
}
